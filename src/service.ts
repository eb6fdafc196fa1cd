/**
 * The composition root: the one place that opens the database, builds the infrastructure clients (Redis
 * counters, the mail and delivery queues), the providers, the workers and the Koa app, and wires them.
 * `idp serve` (and so `npm start`) and the tests all start the service through `startService`, so what the
 * tests run is what production runs; `idp worker` starts through `startWorkerService`.
 */
import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Settings } from './settings/schema.js';
import type { Store } from './store/contract.js';
import type { Database, Engine } from './store/database.js';
import { withReplicaCache } from './store/replica/index.js';
import { fromScope } from './request-scope.js';
import { openRuntime } from './runtime.js';
import { createLogger } from './observability/logger.js';
import { startSweeping } from '../jobs/sweep-expired.js';
import { checkReadiness, type ReadinessCheck } from './observability/health.js';
import { type RateLimits } from './domain/rate-limits.js';
import { createRateLimits } from './infra/rate-limiters.js';
import { type SendMail } from './domain/mail.js';
import { deliverMail } from './infra/mail-transport.js';
import { ensureAccessGroups } from './domain/applications.js';
import { ensureGroupsNamed } from './domain/source-links.js';
import { redisConnection } from './queue/queues.js';
import { enqueueMail, mailQueue } from './queue/mail-queue.js';
import { startProducer } from './queue/producer.js';
import { interactionMiddleware } from './interactions/router.js';
import { accountMiddleware } from './account/router.js';
import { adminMiddleware } from './admin/router.js';
import compose from 'koa-compose';
import { interactionPath } from './interactions/state.js';
import { prepareOidc } from './oidc/setup.js';
import type { ProviderSet } from './oidc/providers.js';
import { logoutTokenSigner } from './oidc/logout-token.js';
import { workerLogoutSigner } from './oidc/worker-signer.js';
import { createApp, listen, stopListening, urlOf } from './server.js';
import { watchService } from './observability/metrics.js';
import { startMetricsServer } from './observability/serve-metrics.js';
import { startWorkers, type Workers } from '../jobs/worker.js';

export interface ServiceOptions {
  logger?: Logger;
  /** An opened, migrated store the caller owns (tests); default: open the configured database. */
  store?: Store;
  /** With `store`: its database, whose change notices let this service cache token-path reads. Without it, no cache. */
  database?: Database;
  /** Serve on this already-listening server (tests bind first, so issuer.base_url can name the port); default: listen on server.host:port. */
  server?: Server;
  /** Run the outbox relay and the delivery and mail workers in this process; default: worker.embedded. */
  workers?: boolean;
  /** Rate-limit counters and the mail queue on Redis (default). false: in-process counters and mail sent directly, for embedding without Redis. */
  redis?: boolean;
}

export interface Service {
  url: string;
  settings: Settings;
  store: Store;
  logger: Logger;
  /** The database engine, when the service opened it. */
  engine?: Engine;
  providers: ProviderSet;
  limits: RateLimits;
  /** The in-process workers, when they run here. */
  workers?: Workers;
  close(): Promise<void>;
}

interface SignInInfrastructure {
  limits: RateLimits;
  sendMail: SendMail;
  close(): Promise<void>;
}

/**
 * Counters wait out a reconnect for up to 2 s; while Redis is not ready they fall back to per-process ones at once.
 * The commands of one event-loop turn (a sign-in's counters, counted or reset together) go in one write.
 */
function redisInfrastructure(settings: Settings): SignInInfrastructure {
  const connection = redisConnection(settings.redis.url, 'producer'); // fails fast while Redis is down
  const counters = new Redis(settings.redis.url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 2000,
    commandTimeout: 2000,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  for (const client of [connection, counters]) client.on('error', () => {}); // they reconnect; readiness reports the outage
  const queue = mailQueue(connection, settings.redis.prefix);
  queue.on('error', () => {});
  const limits = createRateLimits(settings, counters);
  return {
    limits,
    sendMail: enqueueMail(queue),
    async close() {
      limits.close();
      await queue.close();
      connection.disconnect();
      counters.disconnect();
    },
  };
}

function inProcessInfrastructure(settings: Settings, logger: Logger): SignInInfrastructure {
  return { limits: createRateLimits(settings), sendMail: (message) => deliverMail(settings, logger, message), close: async () => {} };
}

/**
 * Redis away at start is not fatal (docs/credentials.md), but the operator should hear it at once, not at the
 * first sign-in. The connections are still being made at start: only a Redis that has not answered within a few
 * seconds is reported.
 */
function warnWhenRedisIsAway(redis: ReadinessCheck, logger: Logger, patienceMs = 5000): void {
  const deadline = Date.now() + patienceMs;
  const check = async (): Promise<void> => {
    if ((await checkReadiness([redis])).ready) return;
    if (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250).unref());
      return check();
    }
    logger.warn(
      { component: 'redis' },
      'Redis is not answering: sign-in works with per-process rate limits, mail and events wait until it is back; /-/health/ready/ says unavailable',
    );
  };
  void check();
}

export async function startService(settings: Settings, options: ServiceOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger(settings.log.level);
  const runtime = options.store ? undefined : await openRuntime(settings);
  const closers: Array<() => Promise<void> | void> = [];
  try {
    // Each serving process keeps the token paths' rows in memory, as current as the database (src/store/replica/).
    const replica = withReplicaCache(options.store ?? runtime!.store, options.store ? options.database : runtime!.database, {
      maxEntries: settings.database.cache_entries,
      logger,
      since: () => fromScope('startedAt'),
    });
    closers.push(replica.stop);
    const { store, cache } = replica;
    const redis = options.redis !== false;
    const infrastructure = redis ? redisInfrastructure(settings) : inProcessInfrastructure(settings, logger.child({ component: 'mail' }));
    closers.push(() => infrastructure.close());
    await ensureAccessGroups(store, settings.applications);
    await ensureGroupsNamed(
      store,
      settings.sources.flatMap((source) => source.groups),
    ); // the groups accounts made by upstream sign-ins join
    const oidc = await prepareOidc(settings, store, logger.child({ component: 'oidc' }), {
      interactionPath,
      limits: infrastructure.limits,
    });
    // `idp keys rotate` reaches this process without a restart: new providers are swapped in (src/oidc/reload-keys.ts).
    closers.push(oidc.keys.every(settings.keys.reload_seconds));

    // Embedded (the laptop default): this process also relays the outbox and delivers. Otherwise `idp worker` does.
    const embedded = options.workers ?? settings.worker.embedded;
    const workers = embedded ? startWorkers(store, settings, logger, logoutTokenSigner(oidc.providers)) : undefined;
    const producer = !workers && redis ? startProducer(settings) : undefined;
    const background = workers ?? producer;
    if (background) closers.push(() => background.close());
    const readiness: ReadinessCheck[] = background ? [{ name: 'redis', check: () => background.ping() }] : [];
    if (background) warnWhenRedisIsAway(readiness[0]!, logger);

    const portalParts = {
      store,
      settings,
      limits: infrastructure.limits,
      sendMail: infrastructure.sendMail,
      enqueue: background?.enqueue,
      providers: oidc.providers,
    };
    const app = createApp({
      settings,
      store,
      logger,
      limits: infrastructure.limits,
      readiness,
      enqueue: background?.enqueue,
      sendMail: infrastructure.sendMail,
      signIn: interactionMiddleware(oidc.providers, store, settings, { ...infrastructure, logger: logger.child({ component: 'sign-in' }) }),
      account: compose([accountMiddleware(portalParts), adminMiddleware(portalParts)]),
      oidc,
    });
    let server = options.server;
    if (server) server.on('request', app.callback());
    else server = await listen(app, settings.server.host, settings.server.port);
    const listening = server;
    closers.push(() => stopListening(listening, settings.server.shutdown_grace_seconds * 1000));
    closers.push(startSweeping(store, logger.child({ component: 'sweeper' }), settings.audit.retention_days));
    closers.push(
      watchService({
        outbox: async () => {
          const { pending, oldest } = await store.events.backlog();
          return { pending, oldestAgeSeconds: oldest ? (Date.now() - oldest.getTime()) / 1000 : 0 };
        },
        queues: background && (() => background.jobCounts()),
        pool: runtime?.database.poolUsage,
        readCache: cache && (() => ({ live: cache.live, entries: cache.size })),
      }),
    );
    const metricsServer = await startMetricsServer(settings, [{ name: 'database', check: () => store.probe() }, ...readiness]);
    if (metricsServer) closers.push(() => new Promise<void>((resolve) => metricsServer.close(() => resolve())));

    return {
      url: urlOf(server),
      settings,
      store,
      logger,
      engine: runtime?.database.engine,
      providers: oidc.providers,
      limits: infrastructure.limits,
      workers,
      async close() {
        for (const close of closers.reverse()) await close();
        await runtime?.close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close();
    await runtime?.close();
    throw error;
  }
}

/** `idp worker`: the outbox relay and the delivery and mail workers, no HTTP. Logout tokens are signed by providers built (never mounted) from the stored keys. */
export async function startWorkerService(
  settings: Settings,
  options: { logger?: Logger } = {},
): Promise<{ engine: Engine; close(): Promise<void> }> {
  const logger = options.logger ?? createLogger(settings.log.level);
  const runtime = await openRuntime(settings);
  const sign = workerLogoutSigner(settings, runtime.store, logger.child({ component: 'oidc' }));
  const workers = startWorkers(runtime.store, settings, logger, sign);
  // A worker has no web listener: with metrics.port it serves /metrics there (its delivery counters live here), and
  // the health routes: ready while its database and Redis answer.
  const unwatch = watchService({ queues: () => workers.jobCounts(), pool: runtime.database.poolUsage });
  const metricsServer = await startMetricsServer(settings, [
    { name: 'database', check: () => runtime.store.probe() },
    { name: 'redis', check: () => workers.ping() },
  ]);
  return {
    engine: runtime.database.engine,
    async close() {
      if (metricsServer) await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      unwatch();
      await workers.close();
      await runtime.close();
    },
  };
}
