/** What the steps of an endpoint (dispatch.ts) leave for the next ones on the request's state. */
import type { Context, Next } from 'koa';
import type { ClientCredentials } from '../read-client.js';
import type { AppProvider } from '../providers.js';

export interface EndpointState {
  /** The application whose provider answers (found by client_id, by the access token, or by the slug). */
  application?: AppProvider;
  /** The caller's client_id and secret (token, revocation, introspection). */
  credentials?: ClientCredentials;
  /** A per-application path as the engine serves it (`/jwks/`, `/authorize/{uid}`…). */
  enginePath?: string;
}

export type EndpointContext = Context & { state: EndpointState };
export type Step = (ctx: EndpointContext, next: Next) => Promise<void>;

/** The application an earlier step found; a step that needs one runs after the step that finds it. */
export function applicationOf(ctx: EndpointContext): AppProvider {
  if (!ctx.state.application) throw new Error('no application found for this request (a step is out of order)');
  return ctx.state.application;
}
