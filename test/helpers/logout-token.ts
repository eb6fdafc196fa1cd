/** What a backchannel receiver does (docs/integrating.md): read the form field, verify the token with the JWKS. */
import { parse } from 'node:querystring';
import * as jose from 'jose';
import type { Received } from './receiver.js';
import type { TestApp } from './oidc-server.js';

export const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export function logoutTokenOf(hit: Received): string {
  expect(hit.headers['content-type']).toBe('application/x-www-form-urlencoded');
  const form = parse(hit.raw.toString('utf8'));
  expect(Object.keys(form)).toEqual(['logout_token']);
  return String(form.logout_token);
}

/** Verifies signature (with the application's ID-token algorithm), iss, aud and typ, and the claims of spec §2.5; returns the payload. */
export async function verifyLogoutToken(hit: Received, app: TestApp, sub: string, alg = 'RS256'): Promise<jose.JWTPayload> {
  const jwks = jose.createRemoteJWKSet(new URL(`${app.issuer}jwks/`));
  const { payload, protectedHeader } = await jose.jwtVerify(logoutTokenOf(hit), jwks, {
    issuer: app.issuer,
    audience: app.client_id,
    typ: 'logout+jwt',
    algorithms: [alg],
  });
  expect(protectedHeader.typ).toBe('logout+jwt');
  expect(protectedHeader.alg).toBe(alg);
  expect(payload.sub).toBe(sub);
  expect(payload.events).toEqual({ [LOGOUT_EVENT]: {} });
  expect(payload.jti).toEqual(expect.any(String));
  expect(payload.iat).toEqual(expect.any(Number));
  expect(payload.exp! - payload.iat!).toBe(120);
  expect(payload).not.toHaveProperty('nonce');
  return payload;
}
