/** Liveness (the process answers) and readiness (its dependencies answer). */
import Router from '@koa/router';

export type ReadinessCheck = { name: string; check: () => Promise<void> };

export function healthRouter(checks: ReadinessCheck[]): Router {
  const router = new Router({ prefix: '/-/health' });
  router.get('/live/', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/ready/', async (ctx) => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => {
        try {
          await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref())]);
          return [name, 'ok'] as const;
        } catch {
          return [name, 'unavailable'] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(results) };
  });
  return router;
}
