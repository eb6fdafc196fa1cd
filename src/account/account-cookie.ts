/**
 * The account page's own cookie (`idp_account`, path /account, HttpOnly, SameSite=Lax): the SSO session and user it
 * names, sealed; and the CSRF tokens bound to that session. account-session.ts checks it on every request.
 */
import type { Context } from 'koa';
import { secretsFrom } from '../domain/secrets.js';
import type { Sealer } from './seal.js';

export const ACCOUNT_COOKIE = 'idp_account';
const LIFETIME_SECONDS = 12 * 3600;

export function accountCookies(seals: Sealer, secret: string, https: boolean) {
  const secrets = secretsFrom(secret);
  return {
    set(ctx: Context, sid: string, sub: string) {
      write(ctx, seals.seal('account', { sid, sub }, LIFETIME_SECONDS), LIFETIME_SECONDS, https);
    },
    clear(ctx: Context) {
      write(ctx, '', 0, https);
    },
    read: (ctx: Context) => seals.unseal<{ sid: string; sub: string }>('account', ctx.cookies.get(ACCOUNT_COOKIE)),
    csrfFor: (sid: string) => secrets.mac('csrf', `account:${sid}`),
    isValidCsrf: (sid: string, token: unknown) => secrets.equal(token, secrets.mac('csrf', `account:${sid}`)),
  };
}
export type AccountCookies = ReturnType<typeof accountCookies>;

function write(ctx: Context, value: string, maxAgeSeconds: number, https: boolean) {
  // The base URL decides Secure (behind a TLS proxy the connection itself may be plain http).
  if (https) ctx.cookies.secure = true;
  ctx.cookies.set(ACCOUNT_COOKIE, value || null, {
    path: '/account',
    httpOnly: true,
    sameSite: 'lax',
    secure: https,
    maxAge: maxAgeSeconds * 1000,
    overwrite: true,
  });
}
