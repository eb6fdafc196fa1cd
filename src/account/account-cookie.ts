/**
 * A portal's own cookie (`idp_account` on /account, `idp_admin` on /admin; HttpOnly, SameSite=Lax): the SSO session
 * and user it names, and when it was set, sealed; and the CSRF tokens bound to that session. account-session.ts
 * checks it on every request.
 */
import type { Context } from 'koa';
import { secretsFrom } from '../domain/secrets.js';
import type { Sealer } from './seal.js';
import type { Portal } from './portal.js';

export interface PortalCookie {
  sid: string;
  sub: string;
  /** When it was set (ms since the epoch): the admin console's absolute limit counts from here. */
  since: number;
}

export function accountCookies(seals: Sealer, secret: string, https: boolean, portal: Portal, lifetimeSeconds = 12 * 3600) {
  const secrets = secretsFrom(secret);
  const csrf = (sid: string) => secrets.mac('csrf', `${portal.cookie}:${sid}`);
  return {
    /** `since`: kept when the cookie is written again (the console's idle limit renews it on each request). */
    set(ctx: Context, sid: string, sub: string, since = Date.now()) {
      write(ctx, portal, seals.seal(portal.cookie, { sid, sub, since }, lifetimeSeconds), lifetimeSeconds, https);
    },
    clear(ctx: Context) {
      write(ctx, portal, '', 0, https);
    },
    read: (ctx: Context) => seals.unseal<PortalCookie>(portal.cookie, ctx.cookies.get(portal.cookie)),
    csrfFor: csrf,
    isValidCsrf: (sid: string, token: unknown) => secrets.equal(token, csrf(sid)),
  };
}
export type AccountCookies = ReturnType<typeof accountCookies>;

function write(ctx: Context, portal: Portal, value: string, maxAgeSeconds: number, https: boolean) {
  // The base URL decides Secure (behind a TLS proxy the connection itself may be plain http).
  if (https) ctx.cookies.secure = true;
  ctx.cookies.set(portal.cookie, value || null, {
    path: portal.path,
    httpOnly: true,
    sameSite: 'lax',
    secure: https,
    maxAge: maxAgeSeconds * 1000,
    overwrite: true,
  });
}
