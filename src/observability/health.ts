/** Liveness (the process answers) and readiness (its dependencies answer). */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';

export type ReadinessCheck = { name: string; check: () => Promise<void> };

/**
 * A random id per process, answered in X-Idp-Instance by both health routes: `idp doctor` asks the listener and the
 * public URL, and the same id means the public URL reaches this very process (not another one, or nothing).
 */
export const INSTANCE_ID = randomUUID();
export const INSTANCE_HEADER = 'X-Idp-Instance';

export function healthRouter(checks: ReadinessCheck[]): Router {
  const router = new Router({ prefix: '/-/health' });
  router.get('/live/', (ctx) => {
    ctx.set(INSTANCE_HEADER, INSTANCE_ID);
    ctx.body = { status: 'ok' };
  });
  router.get('/ready/', async (ctx) => {
    ctx.set(INSTANCE_HEADER, INSTANCE_ID);
    const { ready, checks: states } = await checkReadiness(checks);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', checks: states };
  });
  return router;
}

/** Runs every check (2 s each at most): which dependencies answer. */
export async function checkReadiness(checks: ReadinessCheck[]): Promise<{ ready: boolean; checks: Record<string, 'ok' | 'unavailable'> }> {
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
  return { ready: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
}
