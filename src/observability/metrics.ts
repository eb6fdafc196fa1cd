/**
 * Prometheus metrics (prom-client), one registry per process. Counters and the request histogram are
 * process-wide and incremented where things happen; the gauges (outbox backlog, queue depths, database pool)
 * are read at scrape time from the sources each running service registers, so a scrape is never stale.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequestDuration = new Histogram({
  name: 'idp_http_request_duration_seconds',
  help: 'HTTP requests by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const signIns = new Counter({
  name: 'idp_sign_ins_total',
  help: 'Sign-ins by outcome: success and denied (access group) by the methods used (amr joined: pwd, pwd+otp; session: turned away on an existing single sign-on session); failure by the step that failed (pwd, otp, recovery_code).',
  labelNames: ['outcome', 'method'] as const,
  registers: [registry],
});

export const tokensIssued = new Counter({
  name: 'idp_tokens_issued_total',
  help: 'Successful token endpoint answers by grant type.',
  labelNames: ['grant_type'] as const,
  registers: [registry],
});

export const deliveries = new Counter({
  name: 'idp_delivery_attempts_total',
  help: 'Delivery attempts by kind (webhook, backchannel) and outcome (delivered, retry, failed).',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});

/** What a running service lets the scrape read: each may be absent (no workers here, an embedded database). */
export interface MetricSources {
  outbox?: () => Promise<{ pending: number; oldestAgeSeconds: number }>;
  queues?: () => Promise<Record<string, number>>;
  pool?: () => { total: number; idle: number; waiting: number } | undefined;
  readCache?: () => { live: boolean; entries: number };
}

const sources = new Set<MetricSources>();

/** Registers a service's sources until the returned function is called (at close). */
export function watchService(source: MetricSources): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}

/** Runs `read` on every registered source that has it; a failing source (database down) is skipped. */
async function each<T>(read: (source: MetricSources) => Promise<T> | T | undefined): Promise<T[]> {
  const values = await Promise.all(
    [...sources].map(async (source) => {
      try {
        return await read(source);
      } catch {
        return undefined;
      }
    }),
  );
  return values.filter((value): value is Awaited<T> => value !== undefined) as T[];
}

new Gauge({
  name: 'idp_outbox_pending_events',
  help: 'Events written but not yet handed to the queue.',
  registers: [registry],
  async collect() {
    this.set((await each((s) => s.outbox?.())).reduce((sum, o) => sum + o.pending, 0));
  },
});

new Gauge({
  name: 'idp_outbox_oldest_pending_age_seconds',
  help: 'Age of the oldest event not yet handed to the queue (0 when none).',
  registers: [registry],
  async collect() {
    this.set(Math.max(0, ...(await each((s) => s.outbox?.())).map((o) => o.oldestAgeSeconds)));
  },
});

new Gauge({
  name: 'idp_queue_jobs',
  help: 'Jobs in the delivery queue by state (waiting, active, delayed, failed).',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const counts of await each((s) => s.queues?.())) for (const [state, n] of Object.entries(counts)) this.inc({ state }, n);
  },
});

new Gauge({
  name: 'idp_db_pool_connections',
  help: 'PostgreSQL pool connections by state (total, idle, waiting clients).',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const pool of await each((s) => s.pool?.())) {
      this.inc({ state: 'total' }, pool.total);
      this.inc({ state: 'idle' }, pool.idle);
      this.inc({ state: 'waiting' }, pool.waiting);
    }
  },
});

new Gauge({
  name: 'idp_read_cache_entries',
  help: 'Rows the token paths keep in memory (tokens, codes, grants, users with their groups).',
  registers: [registry],
  async collect() {
    this.set((await each((s) => s.readCache?.())).reduce((sum, cache) => sum + cache.entries, 0));
  },
});

new Gauge({
  name: 'idp_read_cache_live',
  help: '1 while the change notices arrive and the read cache is used; 0 while they do not (every request reads the database).',
  registers: [registry],
  async collect() {
    const caches = await each((s) => s.readCache?.());
    this.set(caches.length && caches.every((cache) => cache.live) ? 1 : 0);
  },
});
