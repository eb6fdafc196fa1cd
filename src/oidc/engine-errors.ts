/**
 * The error the engine rendered for a request, by its class: the engine tells its errors to listeners (providers.ts
 * subscribes every provider) before it answers, and endpoints/remap-engine-errors.ts rewords by class, never by
 * the message.
 */
import type { Context } from 'koa';

const ENGINE_ERROR = Symbol('engine error');
type WithEngineError = { [ENGINE_ERROR]?: Error };

/** For the engine's `authorization.error` and `grant.error` events. */
export function noteEngineError(ctx: Context, error: Error): void {
  (ctx.state as WithEngineError)[ENGINE_ERROR] = error;
}

export const engineErrorOf = (ctx: Context): Error | undefined => (ctx.state as WithEngineError)[ENGINE_ERROR];
