/**
 * What a benchmark server process hands the driver (one JSON line on stdout, `READY {…}`): where its endpoints
 * are, the clients, and tokens and a signed-in browser session made with the engine's own models, so both
 * servers are measured on the same requests from the same starting state.
 */
import { randomBytes } from 'node:crypto';
import Keygrip from 'keygrip';
import type Provider from 'oidc-provider';

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

/** The cookie Koa would set for the engine's session: `_session` and its keygrip signature. */
function signedCookie(keys: string[], name: string, value: string): string {
  return `${name}=${value}; ${name}.sig=${new Keygrip(keys).sign(`${name}=${value}`)}`;
}

type Models = Provider & Record<string, any>;

type Client = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

/** A refresh token under a grant of its own: a refresh never touches what UserInfo or another loop uses. */
async function refreshToken(provider: Models, client: Client, accountId: string): Promise<string> {
  const grant = new provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope(SCOPE);
  const now = Math.floor(Date.now() / 1000);
  return new provider.RefreshToken({
    accountId,
    client,
    grantId: await grant.save(),
    scope: SCOPE,
    gty: 'authorization_code',
    authTime: now,
    amr: ['pwd'],
    iiat: now,
    rotations: 0,
  }).save();
}

/** Tokens for `accountId` through the engine's models (stored by its adapter), and a signed-in session. */
export async function seedTokens(
  providerIn: Provider,
  input: { clientId: string; accountId: string; cookieKeys: string[]; count: number },
) {
  const provider = providerIn as Models;
  const client = (await provider.Client.find(input.clientId))!;
  const accessGrant = new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
  accessGrant.addOIDCScope(SCOPE);
  const accessGrantId = await accessGrant.save();
  const now = Math.floor(Date.now() / 1000);
  const accessTokens: string[] = [];
  const refreshTokens: string[] = [];
  const sessionCookies: string[] = [];
  type Saveable = new (data: object) => { save(ttl: number): Promise<unknown> };
  for (let i = 0; i < input.count; i += 1) {
    accessTokens.push(
      await new provider.AccessToken({
        accountId: input.accountId,
        client,
        grantId: accessGrantId,
        scope: SCOPE,
        gty: 'authorization_code',
        expiresIn: 3600,
      }).save(),
    );
    refreshTokens.push(await refreshToken(provider, client, input.accountId));
    // One signed-in browser per loop, as 32 people would be.
    const jti = randomBytes(16).toString('base64url');
    await new (provider.Session as unknown as Saveable)({
      jti,
      uid: randomBytes(16).toString('base64url'),
      accountId: input.accountId,
      loginTs: now,
      amr: ['pwd'],
      authorizations: {},
    }).save(14 * 24 * 3600);
    sessionCookies.push(signedCookie(input.cookieKeys, '_session', jti));
  }
  return { accessTokens, refreshTokens, sessionCookies };
}

/**
 * The `signedWith` part of a fixture: refresh tokens of each algorithm's application, made with `providerOf(alg)`
 * (the bare engine has one provider for every client, the service one per application).
 */
export async function seedSignedWith(
  providerOf: (alg: OtherAlg) => Provider,
  input: { client: BenchClient; accountId: string; count: number },
): Promise<BenchFixture['signedWith']> {
  const entries = [];
  for (const alg of OTHER_ALGS) {
    const provider = providerOf(alg) as Models;
    const client = (await provider.Client.find(algClientId(alg)))!;
    const refreshTokens: string[] = [];
    for (let i = 0; i < input.count; i += 1) refreshTokens.push(await refreshToken(provider, client, input.accountId));
    entries.push([alg, { client: { ...input.client, id: algClientId(alg) }, refreshTokens }] as const);
  }
  return Object.fromEntries(entries) as BenchFixture['signedWith'];
}

export function announce(fixture: BenchFixture): void {
  process.stdout.write(`READY ${JSON.stringify(fixture)}\n`);
}
