/** Headers every response carries; API responses are never cached (they hold personal data). */
import type { Context, Next } from 'koa';

export async function setSecurityHeaders(ctx: Context, next: Next) {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  if (ctx.path.startsWith('/api/')) ctx.set('Cache-Control', 'no-store');
  await next();
}
