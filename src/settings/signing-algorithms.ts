/**
 * The JWS algorithms an application's ID tokens (and its backchannel logout tokens) may be signed with. RS256 is
 * the default the spec names and what every relying party verifies; ES256 (P-256) and EdDSA (Ed25519) sign far
 * faster. The schema, the stored keys and the engine all take the list from here.
 */
export const SIGNING_ALGS = ['RS256', 'ES256', 'EdDSA'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];
export const DEFAULT_SIGNING_ALG = 'RS256' satisfies SigningAlg;
