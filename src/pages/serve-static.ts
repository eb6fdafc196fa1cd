/**
 * GET /static/…: the pages' stylesheet, their one script (passkeys, copy buttons) and the WebAuthn browser
 * library (@simplewebauthn/browser's bundle, served from our origin so the CSP stays `script-src 'self'`). Read once.
 * And the icon: /static/favicon.svg, which the pages link, and /favicon.ico, which browsers ask for by themselves
 * (on the engine's JSON and form pages too), so no page's visit leaves a 404 in the log.
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

interface StaticFile {
  type: string;
  body: Buffer;
  /** Seconds a browser may keep it: an hour for what a release changes, a week for the icon. */
  maxAge: number;
}

const own = (name: string) => readFileSync(path.join(VIEWS_DIR, 'static', name));
const HOUR = 3600;
const WEEK = 7 * 24 * HOUR;

export function serveStatic() {
  const files = new Map<string, StaticFile>([
    ['/static/style.css', { type: 'text/css; charset=utf-8', body: own('style.css'), maxAge: HOUR }],
    ['/static/passkey.js', { type: 'text/javascript; charset=utf-8', body: own('passkey.js'), maxAge: HOUR }],
    ['/static/webauthn.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(webauthnBundle()), maxAge: HOUR }],
    ['/static/favicon.svg', { type: 'image/svg+xml', body: own('favicon.svg'), maxAge: WEEK }],
    ['/favicon.ico', { type: 'image/x-icon', body: own('favicon.ico'), maxAge: WEEK }],
  ]);
  return async function serveFile(ctx: Context, next: Next) {
    const file = files.get(ctx.path);
    if (!file || !['GET', 'HEAD'].includes(ctx.method)) return next();
    ctx.type = file.type;
    ctx.set('Cache-Control', `public, max-age=${file.maxAge}`);
    // An SVG opened on its own is a document: it may run nothing.
    if (file.type === 'image/svg+xml') ctx.set('Content-Security-Policy', "default-src 'none'");
    ctx.body = file.body;
  };
}
