/** The sign-in pages' types: what the router hands every handler, and what the interaction middleware leaves on ctx.state. */
import type Provider from 'oidc-provider';
import type { ParameterizedContext } from 'koa';
import type { ApplicationSettings, Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { RateLimits } from '../domain/rate-limits.js';
import type { SendMail } from '../domain/mail.js';
import type { Logger } from 'pino';
import type { TicketSigner } from './tickets.js';
import type { RelyingParty } from '../domain/passkeys.js';

/** The sign-in page of an interaction: `/if/flow/{slug}/{uid}/` (the engine sends the browser there). */
export const interactionPath = (slug: string, uid: string) => `/if/flow/${slug}/${uid}/`;

/** One application and its engine instance, as the composition root hands them over. */
export interface SignInApp {
  app: ApplicationSettings;
  provider: Provider;
}

export interface SignInApps {
  bySlug: Map<string, SignInApp>;
}

/** What the pages need beyond the store, built by the composition root: rate-limit counters and a way to send mail. */
export interface SignInServices {
  limits: RateLimits;
  sendMail: SendMail;
  /** For what must reach an operator now (a cloned passkey); the audit trail keeps the rest. */
  logger?: Logger;
}

/** What every handler shares, built once by the router. */
export interface SignInDeps {
  store: Store;
  settings: Settings;
  services: SignInServices;
  tickets: TicketSigner;
  /** Passkeys are bound to the base URL's host name and origin. */
  rp: RelyingParty;
}

export type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

export interface InteractionState {
  entry: SignInApp;
  details: InteractionDetails;
  /** The interaction page's own path, `/if/flow/{slug}/{uid}/`. */
  base: string;
  csrf: string;
  /** The upstream identity providers the application offers ("Continue with {name}"; src/sources/). */
  sources: OfferedSource[];
}

export interface OfferedSource {
  slug: string;
  name: string;
}

export type InteractionContext = ParameterizedContext<{ interaction: InteractionState }> & { request: { body?: Record<string, unknown> } };
