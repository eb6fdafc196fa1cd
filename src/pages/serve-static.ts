/**
 * GET /static/…: the pages' stylesheet, their one script (passkeys, copy buttons) and the WebAuthn browser
 * library (@simplewebauthn/browser's bundle, served from our origin so the CSP stays `script-src 'self'`). Read once.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Context, Next } from 'koa';
import { VIEWS_DIR } from './render-page.js';

const require = createRequire(import.meta.url);
/** The package's exports name no bundle: find it beside its CommonJS entry (script/index.js). */
const webauthnBundle = () =>
  path.join(path.dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js');

export function serveStatic() {
  const files = new Map<string, { type: string; body: Buffer }>([
    ['/static/style.css', { type: 'text/css; charset=utf-8', body: readFileSync(path.join(VIEWS_DIR, 'static', 'style.css')) }],
    ['/static/passkey.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(path.join(VIEWS_DIR, 'static', 'passkey.js')) }],
    ['/static/webauthn.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(webauthnBundle()) }],
  ]);
  return async function serveFile(ctx: Context, next: Next) {
    const file = files.get(ctx.path);
    if (!file || !['GET', 'HEAD'].includes(ctx.method)) return next();
    ctx.type = file.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = file.body;
  };
}
