/**
 * The protocol requests measured on both servers, the same way: each scenario is one operation of a loop.
 * Refresh loops carry their rotated token from one request to the next; SSO loops do authorize (with the
 * signed-in session's cookie) and then the code exchange.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BenchFixture } from './fixture.js';
import { basic, call, expectStatus, form, FORM } from './loops.js';

const VERIFIER = randomBytes(32).toString('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

export type Scenario = (fixture: BenchFixture) => (loop: number) => Promise<void>;

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
  'refresh grant': (f) => {
    const chains = [...f.refreshTokens];
    return async (loop) => {
      const answer = expectStatus(
        await call(f.url + f.paths.token, {
          method: 'POST',
          headers: { 'Content-Type': FORM, Authorization: basic(f.client.id, f.client.secret) },
          body: form({ grant_type: 'refresh_token', refresh_token: chains[loop]! }),
        }),
        200,
        'refresh',
      );
      chains[loop] = (JSON.parse(answer.body) as { refresh_token: string }).refresh_token;
    };
  },
  'SSO authorize + code exchange': (f) => async (loop) => {
    const query = new URLSearchParams({
      client_id: f.client.id,
      redirect_uri: f.client.redirectUri,
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
        headers: { 'Content-Type': FORM, Authorization: basic(f.client.id, f.client.secret) },
        body: form({ grant_type: 'authorization_code', code, redirect_uri: f.client.redirectUri, code_verifier: VERIFIER }),
      }),
      200,
      'code exchange',
    );
  },
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
