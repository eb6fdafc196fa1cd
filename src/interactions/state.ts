/** What the interaction middleware leaves on ctx.state for the handlers. */
import type Provider from 'oidc-provider';
import type { ParameterizedContext } from 'koa';
import type { AppProvider } from '../oidc/providers.js';

export type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

export interface InteractionState {
  entry: AppProvider;
  details: InteractionDetails;
  /** The interaction page's own path, `/if/flow/{slug}/{uid}/`. */
  base: string;
  csrf: string;
}

export type InteractionContext = ParameterizedContext<{ interaction: InteractionState }> & { request: { body?: Record<string, unknown> } };
