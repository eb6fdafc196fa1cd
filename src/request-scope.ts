/**
 * What a request carries through every call it makes without passing it along: its id (for the log lines), when
 * it started (the read cache answers from memory only what no change committed before then could have altered)
 * and its acting party (for the audit trail). One AsyncLocalStorage for both: on Node 20 each live storage adds hooks
 * that every promise of every request pays for, and the engine makes many.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  requestId?: string;
  /** performance.now() when the request arrived. */
  startedAt?: number;
  actor?: unknown;
}

const scope = new AsyncLocalStorage<Scope>();

/** Runs `work` with `values` added to the current scope (an inner scope never changes the outer one). */
export const withinScope = <T>(values: Scope, work: () => T): T => scope.run({ ...scope.getStore(), ...values }, work);

/** The current scope's value of `name`; undefined outside any request. */
export const fromScope = <K extends keyof Scope>(name: K): Scope[K] | undefined => scope.getStore()?.[name];
