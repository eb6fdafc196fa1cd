/**
 * Runs a provider's middleware on the parent's context, koa-mount style: the engine sees `innerPath` and
 * builds its URLs from `ctx.mountPath`. Downstream middleware sees the original path again.
 */
import compose from 'koa-compose';
import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';

const composed = new WeakMap<Provider, Middleware>();

export async function runProvider(provider: Provider, ctx: Context, next: Next, mountPath: string, innerPath: string): Promise<void> {
  let downstream = composed.get(provider);
  if (!downstream) composed.set(provider, (downstream = compose(provider.middleware as Middleware[])));
  const mounted = ctx as Context & { mountPath?: string };
  const [previousPath, previousMount] = [ctx.path, mounted.mountPath];
  mounted.mountPath = mountPath;
  ctx.path = innerPath;
  try {
    await downstream(ctx, async () => {
      ctx.path = previousPath;
      mounted.mountPath = previousMount;
      await next();
      ctx.path = innerPath;
      mounted.mountPath = mountPath;
    });
  } finally {
    ctx.path = previousPath;
    mounted.mountPath = previousMount;
  }
}
