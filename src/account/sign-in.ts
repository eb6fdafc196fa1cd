/**
 * The account client's sign-in: an authorization request (code, PKCE S256, state) to the engine, like any
 * application's. The state, the PKCE verifier and where to return go in a short-lived signed cookie.
 * `fresh` asks the engine for a new sign-in even inside a live session (prompt=login): a change after ten
 * minutes re-asks for the password or a passkey this way.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { AccountDeps } from './state.js';
import type { Portal } from './portal.js';

const FLOW_SECONDS = 15 * 60;
export const flowCookie = (portal: Portal) => `${portal.cookie}_flow`;

export interface AccountFlow {
  state: string;
  verifier: string;
  returnTo: string;
}

/** Only paths of the portal itself: never an open redirect. */
export const safeReturn = (portal: Portal, path: unknown) =>
  typeof path === 'string' && path.startsWith(`${portal.path}/`) && /^[A-Za-z0-9/_-]*$/.test(path) ? path : `${portal.path}/`;

export function startAccountSignIn(ctx: Context, deps: AccountDeps, options: { returnTo: string; fresh?: { loginHint?: string } }) {
  const base = deps.settings.issuer.base_url.replace(/\/$/, '');
  const flow: AccountFlow = {
    state: randomBytes(16).toString('base64url'),
    verifier: randomBytes(32).toString('base64url'),
    returnTo: safeReturn(deps.portal, options.returnTo),
  };
  const url = new URL(`${base}/application/o/authorize/`);
  url.search = new URLSearchParams({
    client_id: deps.portal.clientId,
    response_type: 'code',
    scope: 'openid',
    redirect_uri: `${base}${deps.portal.path}/callback`,
    state: flow.state,
    code_challenge: createHash('sha256').update(flow.verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(options.fresh ? { prompt: 'login', ...(options.fresh.loginHint ? { login_hint: options.fresh.loginHint } : {}) } : {}),
  }).toString();
  const https = base.startsWith('https:');
  if (https) ctx.cookies.secure = true;
  ctx.cookies.set(flowCookie(deps.portal), deps.seal(`${deps.portal.cookie}-flow`, flow, FLOW_SECONDS), {
    path: deps.portal.path,
    httpOnly: true,
    sameSite: 'lax',
    secure: https,
    maxAge: FLOW_SECONDS * 1000,
    overwrite: true,
  });
  ctx.status = 303;
  ctx.redirect(url.toString());
}
