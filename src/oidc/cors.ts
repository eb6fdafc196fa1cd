/**
 * CORS for browser apps (single-page apps), per application: its `allowed_origins` may call the token,
 * UserInfo, JWKS, discovery, introspection and revocation endpoints; nobody else, never `*`, never with
 * credentials. The engine's own CORS answers are replaced by this decision. Pages send no CORS headers at all.
 */
import type { Context } from 'koa';

const ALLOWED_HEADERS = 'Authorization, Content-Type, DPoP';
const EXPOSED_HEADERS = 'WWW-Authenticate, DPoP-Nonce';

/** The CORS headers the engine (lib/shared/cors.js) or anything else may have set: the decision here replaces them. */
const CORS_HEADERS = [
  'Access-Control-Allow-Origin',
  'Access-Control-Expose-Headers',
  'Access-Control-Allow-Methods',
  'Access-Control-Allow-Headers',
  'Access-Control-Allow-Credentials',
  'Access-Control-Max-Age',
];

// By name rather than by listing the answer's headers: this runs on every protocol request.
function clear(ctx: Context) {
  for (const name of CORS_HEADERS) ctx.remove(name);
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

/**
 * After the engine answered: the response may be read by the caller's origin only when the application allows it
 * (`origins` is asked only when the request has an Origin).
 */
export function allowOrigin(ctx: Context, origins: () => readonly string[] | undefined): void {
  clear(ctx);
  const origin = ctx.get('Origin');
  if (!origin) return;
  ctx.vary('Origin');
  if (!origins()?.includes(origin)) return;
  ctx.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS });
}

/** Pages (authorize, end-session) are navigations, never read by scripts: no CORS headers. */
export const noCors = clear;

export const isPreflight = (ctx: Context) => ctx.method === 'OPTIONS' && Boolean(ctx.get('Access-Control-Request-Method'));
