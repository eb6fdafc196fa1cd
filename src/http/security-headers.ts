/**
 * Headers every response carries; API responses are never cached (they hold personal data). With an https
 * base URL, browsers are told to use nothing else for a year (HSTS).
 */
import type { Context, Next } from 'koa';

export function securityHeaders(baseUrl: string) {
  const https = new URL(baseUrl).protocol === 'https:';
  return function setSecurityHeaders(ctx: Context, next: Next) {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    if (https) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    if (ctx.path.startsWith('/api/')) ctx.set('Cache-Control', 'no-store');
    return next();
  };
}
