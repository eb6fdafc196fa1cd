/**
 * Discovery documents and JWKS as published answers: what the engine wrote for a provider instance the first
 * time, served again without running the engine. Both depend on the provider's configuration and keys only, and
 * a key rotation builds new provider instances (reload-keys.ts), so an answer kept per instance cannot go stale.
 */
import type { Context } from 'koa';
import type Provider from 'oidc-provider';

interface Published {
  body: string;
  type: string;
  headers: Record<string, string>;
}

const published = new WeakMap<Provider, Map<string, Published>>();
/** Headers of the engine's answer worth repeating (CORS is decided per request by the caller). */
const KEPT = ['cache-control', 'content-security-policy'];

/** Answers a GET of `path` from what was kept for `provider`; false when nothing is kept yet. */
export function answerPublished(ctx: Context, provider: Provider, path: string): boolean {
  const kept = published.get(provider)?.get(path);
  if (!kept) return false;
  // The route name the engine would have given it (request metrics label by it).
  (ctx as Context & { oidc?: { route: string } }).oidc = { route: path.startsWith('/jwks') ? 'jwks' : 'discovery' };
  ctx.status = 200;
  ctx.type = kept.type;
  ctx.set(kept.headers);
  ctx.body = kept.body;
  return true;
}

/** Keeps the engine's successful answer to a GET of `path`. */
export function keepPublished(ctx: Context, provider: Provider, path: string): void {
  if (ctx.status !== 200 || ctx.method !== 'GET' || ctx.body == null) return;
  const body = typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body);
  const headers = Object.fromEntries(KEPT.map((name) => [name, ctx.response.get(name)]).filter(([, value]) => value)) as Record<
    string,
    string
  >;
  let forProvider = published.get(provider);
  if (!forProvider) published.set(provider, (forProvider = new Map()));
  forProvider.set(path, { body, type: ctx.response.get('Content-Type') || 'application/json; charset=utf-8', headers });
}
