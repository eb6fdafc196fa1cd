/**
 * The engine's models (oidc-provider keeps every one of them in the table `oidc_payloads`) and what each is to
 * the store. This is the one list: the adapter, the replica cache, the write batch, the repository's SQL and the
 * change-notice trigger all take theirs from here.
 */

export interface ModelTraits {
  /**
   * A serving process keeps its rows in memory (src/store/replica/), so the database announces every change that
   * could make a kept copy mislead. The triggers of migration 0009 list exactly these models (a migration's SQL is
   * history: changing this trait needs a new migration; test/store/change-notices.test.ts holds the two together).
   */
  cached: boolean;
  /** A token or authorization request notes its saves and writes them with its answer, in one statement. */
  batched: boolean;
  /** Redeemed once: the consume decides in the database, and losing it ends the grant (engine-storage/unit-of-work.ts). */
  singleUse: boolean;
  /** Ends with its grant (revokeByGrantId), as in the engine's own memory adapter (`grantable`). */
  grantBound: boolean;
  /** Saved again by the engine mostly as it was read: a save that changes nothing is skipped (unit-of-work.ts). */
  resaved: boolean;
  /**
   * The engine reads these rows past their expiry on purpose (`ignoreExpiration`) and checks the expiry itself, to
   * answer "expired" rather than "unknown": RFC 8628 §3.5's expired_token to a polling device, "that code has
   * expired" on the device page. The row's storage expiry is `EXPIRED_ROWS_KEPT_SECONDS` later than its payload's
   * (engine-storage/adapter.ts); the sweep removes it then.
   */
  toldExpired: boolean;
}

/** How long a `toldExpired` row outlives its expiry: longer than any device keeps polling (openid-client stops at expires_in). */
export const EXPIRED_ROWS_KEPT_SECONDS = 3600;

const traits = (set: Partial<ModelTraits>): ModelTraits => ({
  cached: false,
  batched: false,
  singleUse: false,
  grantBound: false,
  resaved: false,
  toldExpired: false,
  ...set,
});

/** Every model the engine stores; a model not listed here has no trait. */
export const OIDC_MODELS = {
  Session: traits({ cached: true, batched: true, resaved: true }),
  Grant: traits({ cached: true, batched: true, resaved: true }),
  AccessToken: traits({ cached: true, batched: true, grantBound: true }),
  ClientCredentials: traits({ cached: true, batched: true }),
  AuthorizationCode: traits({ cached: true, batched: true, singleUse: true, grantBound: true }),
  RefreshToken: traits({ cached: true, batched: true, singleUse: true, grantBound: true }),
  DeviceCode: traits({ singleUse: true, grantBound: true, toldExpired: true }),
  BackchannelAuthenticationRequest: traits({ singleUse: true, grantBound: true }),
  Interaction: traits({}),
  PushedAuthorizationRequest: traits({}),
  ReplayDetection: traits({}),
} as const satisfies Record<string, ModelTraits>;

export type OidcModel = keyof typeof OIDC_MODELS;

/** The models with `trait`, in the table's order. */
export function modelsThat(trait: keyof ModelTraits): readonly OidcModel[] {
  return (Object.keys(OIDC_MODELS) as OidcModel[]).filter((model) => OIDC_MODELS[model][trait]);
}

/** Whether `model` has `trait` (false for a model the table does not list). */
export function hasTrait(model: string, trait: keyof ModelTraits): boolean {
  return Object.hasOwn(OIDC_MODELS, model) && OIDC_MODELS[model as OidcModel][trait];
}

/** One key for one row of one model, wherever rows are collected in memory (a request's writes, a statement's calls). */
export const rowKey = (model: string, id: string) => `${model}\u0000${id}`;
