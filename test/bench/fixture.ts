/**
 * What a benchmark server process hands the driver (one JSON line on stdout, `READY {…}`): where its endpoints
 * are, the clients, and tokens and a signed-in browser session made with the engine's own models, so both
 * servers are measured on the same requests from the same starting state.
 */
import { randomBytes } from 'node:crypto';
import Keygrip from 'keygrip';
import type Provider from 'oidc-provider';

export interface BenchFixture {
  name: string;
  url: string;
  pid: number;
  paths: { discovery: string; jwks: string; authorize: string; token: string; userinfo: string; introspection: string };
  client: { id: string; secret: string; redirectUri: string };
  machine: { id: string; secret: string; scope: string };
  accessTokens: string[];
  refreshTokens: string[];
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

/** Tokens for `accountId` through the engine's models (stored by its adapter), and a signed-in session. */
export async function seedTokens(
  providerIn: Provider,
  input: { clientId: string; accountId: string; cookieKeys: string[]; count: number },
) {
  const provider = providerIn as Models;
  const client = (await provider.Client.find(input.clientId))!;
  const newGrant = async () => {
    const grant = new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
    grant.addOIDCScope(SCOPE);
    return grant.save();
  };
  // Access tokens and refresh tokens under grants of their own: a refresh never touches what UserInfo uses.
  const accessGrant = await newGrant();
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
        grantId: accessGrant,
        scope: SCOPE,
        gty: 'authorization_code',
        expiresIn: 3600,
      }).save(),
    );
    refreshTokens.push(
      await new provider.RefreshToken({
        accountId: input.accountId,
        client,
        grantId: await newGrant(),
        scope: SCOPE,
        gty: 'authorization_code',
        authTime: now,
        amr: ['pwd'],
        iiat: now,
        rotations: 0,
      }).save(),
    );
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

export function announce(fixture: BenchFixture): void {
  process.stdout.write(`READY ${JSON.stringify(fixture)}\n`);
}
