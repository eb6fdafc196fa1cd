/**
 * The protocol requests measured on both servers, the same way: each scenario is one operation of a loop.
 * Refresh loops carry their rotated token from one request to the next; SSO loops do authorize (with the
 * signed-in session's cookie) and then the code exchange. Both sign an ID token, so each is measured three times:
 * with the RS256 application and with the ES256 and EdDSA ones (`refresh grant (EdDSA)`, …), on both servers.
 */
import { createHash, randomBytes } from 'node:crypto';
import { OTHER_ALGS, type BenchClient, type BenchFixture } from './fixture.js';
import { basic, call, expectStatus, form, FORM } from './loops.js';

const VERIFIER = randomBytes(32).toString('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

export type Scenario = (fixture: BenchFixture) => (loop: number) => Promise<void>;

/** Each loop carries its rotated token from one request to the next. */
function refreshGrant(f: BenchFixture, client: BenchClient, refreshTokens: string[]) {
  const chains = [...refreshTokens];
  return async (loop: number) => {
    const answer = expectStatus(
      await call(f.url + f.paths.token, {
        method: 'POST',
        headers: { 'Content-Type': FORM, Authorization: basic(client.id, client.secret) },
        body: form({ grant_type: 'refresh_token', refresh_token: chains[loop]! }),
      }),
      200,
      'refresh',
    );
    chains[loop] = (JSON.parse(answer.body) as { refresh_token: string }).refresh_token;
  };
}

/** Authorize with the loop's signed-in session, then the code exchange. */
const ssoCodeExchange = (f: BenchFixture, client: BenchClient) => async (loop: number) => {
  const query = new URLSearchParams({
    client_id: client.id,
    redirect_uri: client.redirectUri,
    response_type: 'code',
    scope: 'openid profile email',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  });
  const authorized = expectStatus(
    await call(`${f.url}${f.paths.authorize}?${query}`, { headers: { Cookie: f.sessionCookies[loop]! } }),
    303,
    'authorize',
  );
  const code = new URL(String(authorized.headers.location)).searchParams.get('code');
  if (!code) throw new Error(`authorize: no code in ${authorized.headers.location}`);
  expectStatus(
    await call(f.url + f.paths.token, {
      method: 'POST',
      headers: { 'Content-Type': FORM, Authorization: basic(client.id, client.secret) },
      body: form({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: VERIFIER }),
    }),
    200,
    'code exchange',
  );
};

/** The two scenarios that sign an ID token, again with an application signing with `alg` (the plain ones sign with RS256). */
const signedWith = (
  name: string,
  scenario: (f: BenchFixture, client: BenchClient, refreshTokens: string[]) => (loop: number) => Promise<void>,
) =>
  Object.fromEntries(
    OTHER_ALGS.map((alg): [string, Scenario] => [
      `${name} (${alg})`,
      (f) => scenario(f, f.signedWith[alg].client, f.signedWith[alg].refreshTokens),
    ]),
  );

export const protocolScenarios: Record<string, Scenario> = {
  discovery: (f) => async () => {
    expectStatus(await call(f.url + f.paths.discovery), 200, 'discovery');
  },
  JWKS: (f) => async () => {
    expectStatus(await call(f.url + f.paths.jwks), 200, 'jwks');
  },
  UserInfo: (f) => async (loop) => {
    const token = f.accessTokens[loop % f.accessTokens.length]!;
    expectStatus(await call(f.url + f.paths.userinfo, { headers: { Authorization: `Bearer ${token}` } }), 200, 'userinfo');
  },
  'refresh grant': (f) => refreshGrant(f, f.client, f.refreshTokens),
  ...signedWith('refresh grant', refreshGrant),
  'SSO authorize + code exchange': (f) => ssoCodeExchange(f, f.client),
  ...signedWith('SSO authorize + code exchange', ssoCodeExchange),
  'client credentials': (f) => async () => {
    expectStatus(
      await call(f.url + f.paths.token, {
        method: 'POST',
        headers: { 'Content-Type': FORM, Authorization: basic(f.machine.id, f.machine.secret) },
        body: form({ grant_type: 'client_credentials', scope: f.machine.scope }),
      }),
      200,
      'client credentials',
    );
  },
  introspection: (f) => async (loop) => {
    const answer = expectStatus(
      await call(f.url + f.paths.introspection, {
        method: 'POST',
        headers: { 'Content-Type': FORM, Authorization: basic(f.machine.id, f.machine.secret) },
        body: form({ token: f.accessTokens[loop % f.accessTokens.length]! }),
      }),
      200,
      'introspection',
    );
    if (!(JSON.parse(answer.body) as { active: boolean }).active) throw new Error('introspection: token not active');
  },
};
