/**
 * CORS for browser apps (single-page apps), per application: its `allowed_origins` may call the token,
 * UserInfo, JWKS, discovery, introspection and revocation endpoints; nobody else, never `*`, never with
 * credentials. The engine's own CORS answers are replaced by this decision. Pages send no CORS headers at all.
 */
import type { Context } from 'koa';

const ALLOWED_HEADERS = 'Authorization, Content-Type, DPoP';
const EXPOSED_HEADERS = 'WWW-Authenticate, DPoP-Nonce';

function clear(ctx: Context) {
  for (const name of Object.keys(ctx.response.headers)) if (name.toLowerCase().startsWith('access-control-')) ctx.remove(name);
}

/** An answer to a preflight (OPTIONS with Access-Control-Request-Method): 204, with the grant only for allowed origins. */
export function answerPreflight(ctx: Context, allowed: (origin: string) => boolean, methods: string): void {
  const origin = ctx.get('Origin');
  ctx.vary('Origin');
  ctx.status = 204;
  if (!origin || !allowed(origin)) return;
  ctx.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': methods,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': '600',
  });
}

/** After the engine answered: the response may be read by the caller's origin only when the application allows it. */
export function allowOrigin(ctx: Context, origins: string[] | undefined): void {
  clear(ctx);
  const origin = ctx.get('Origin');
  if (!origin) return;
  ctx.vary('Origin');
  if (!origins?.includes(origin)) return;
  ctx.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS });
}

/** Pages (authorize, end-session) are navigations, never read by scripts: no CORS headers. */
export const noCors = clear;

export const isPreflight = (ctx: Context) => ctx.method === 'OPTIONS' && Boolean(ctx.get('Access-Control-Request-Method'));
