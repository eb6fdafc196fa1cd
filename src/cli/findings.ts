/** `idp doctor`'s result lines: one per check, `ok`, `warn` or `FAIL`, each with what was found and what to do. */
export type Status = 'ok' | 'warn' | 'FAIL';

export interface Finding {
  status: Status;
  check: string;
  detail: string;
}

export const ok = (check: string, detail: string): Finding => ({ status: 'ok', check, detail });
export const warn = (check: string, detail: string): Finding => ({ status: 'warn', check, detail });
export const fail = (check: string, detail: string): Finding => ({ status: 'FAIL', check, detail });

/** Every network check gives up after this long, so an unreachable dependency costs seconds, not minutes. */
export const NETWORK_TIMEOUT_MS = 3000;
