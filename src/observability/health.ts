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

/** The answer of a health route: liveness at once; readiness once every check has answered or given up. */
export async function healthAnswer(route: 'live' | 'ready', checks: ReadinessCheck[]): Promise<{ status: number; body: unknown }> {
  if (route === 'live') return { status: 200, body: { status: 'ok' } };
  const { ready, checks: states } = await checkReadiness(checks);
  return { status: ready ? 200 : 503, body: { status: ready ? 'ok' : 'unavailable', checks: states } };
}

export function healthRouter(checks: ReadinessCheck[]): Router {
  const router = new Router({ prefix: '/-/health' });
  for (const route of ['live', 'ready'] as const) {
    router.get(`/${route}/`, async (ctx) => {
      ctx.set(INSTANCE_HEADER, INSTANCE_ID);
      const { status, body } = await healthAnswer(route, checks);
      ctx.status = status;
      ctx.body = body;
    });
  }
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
