/**
 * What a benchmark server process hands the driver (one JSON line on stdout, `READY {…}`): where its endpoints
 * are, the clients, and the tokens and signed-in browser sessions of LOOPS HTTP sign-ins (signed-in-fixture.ts),
 * so both servers are measured on the same requests from the same kind of starting state.
 */

export interface BenchClient {
  id: string;
  secret: string;
  redirectUri: string;
}

/** The ID-token algorithms measured beside RS256 (refresh and SSO, where the engine signs an ID token). */
export const OTHER_ALGS = ['ES256', 'EdDSA'] as const;
export type OtherAlg = (typeof OTHER_ALGS)[number];
/** The client of the `alg` application on both servers; same secret and redirect URI as `bench`. */
export const algClientId = (alg: OtherAlg) => `bench-${alg.toLowerCase()}`;

export interface BenchFixture {
  name: string;
  url: string;
  pid: number;
  paths: { discovery: string; jwks: string; authorize: string; token: string; userinfo: string; introspection: string };
  client: BenchClient;
  machine: { id: string; secret: string; scope: string };
  accessTokens: string[];
  refreshTokens: string[];
  /** Applications like `client` but signing their ID tokens with ES256 or EdDSA (`client` signs with RS256), and their refresh tokens. */
  signedWith: Record<OtherAlg, { client: BenchClient; refreshTokens: string[] }>;
  /** Cookie headers of browsers signed in to the SSO session, one per loop. */
  sessionCookies: string[];
  /** The service only: what its own scenarios need. */
  extras?: { apiToken: string; databaseUrl: string; people: string[]; password: string; bcryptCost: number };
}

export const LOOPS = 32;
/** Password sign-ins are bcrypt-bound: a few loops keep the hashing threads busy. */
export const SIGN_IN_LOOPS = 8;
export const SCOPE = 'openid profile email';

export function announce(fixture: BenchFixture): void {
  process.stdout.write(`READY ${JSON.stringify(fixture)}\n`);
}
