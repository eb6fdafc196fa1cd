/**
 * `idp worker` as its own process delivers backchannel logouts: it builds the applications' providers from
 * the shared database's keys (no HTTP server) and signs tokens the web server's JWKS verifies.
 * A separate process shares the database: PostgreSQL only (PGlite is single-process).
 */
import { mkdtempSync } from 'node:fs';
import { freePort } from '../helpers/ports.js';
import os from 'node:os';
import path from 'node:path';
import { startIdp } from '../helpers/cli.js';
import { startReceiver } from '../helpers/receiver.js';
import { REDIS_URL } from '../helpers/redis.js';
import { startLogoutServer } from '../helpers/logout-server.js';
import { verifyLogoutToken } from '../helpers/logout-token.js';
import { recordEndedSession } from '../../src/domain/logout.js';

const withPostgres = process.env.TEST_DATABASE_URL ? test : test.skip;

withPostgres(
  'idp worker signs and delivers a backchannel logout',
  async () => {
    const receiver = await startReceiver((_, index) => (index === 0 ? 503 : 200));
    const metricsPort = await freePort();
    const idp = await startLogoutServer(
      'postgres',
      'http://127.0.0.1/cb',
      [{ slug: 'wiki', backchannel_logout_uri: `${receiver.url}/bc` }],
      { workers: false },
    );
    const env = {
      DATABASE_URL: idp.db.url!,
      IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-worker-')),
      NODE_CONFIG: JSON.stringify({
        issuer: { base_url: idp.url },
        redis: { url: REDIS_URL, prefix: idp.settings.redis.prefix },
        secrets: { key: 'k'.repeat(64) },
        webhooks: idp.settings.webhooks,
        worker: { ...idp.settings.worker, embedded: false },
        applications: idp.settings.applications,
        metrics: { enabled: true, token: '', port: metricsPort },
      }),
    };
    const worker = startIdp(['worker'], env);
    try {
      const sub = '6f9b7a52-0000-4000-8000-000000000002';
      await recordEndedSession(idp.store, { sub, authorizations: [{ client_id: 'client-wiki', sid: 'sid-x' }] });
      const hits = await receiver.waitFor(2, 30_000);
      const [first, second] = await Promise.all(hits.map((hit) => verifyLogoutToken(hit, idp.apps.wiki!, sub)));
      expect(first!.jti).not.toBe(second!.jti);
      // The worker serves its own metrics on metrics.port: its attempts are counted there.
      let metrics = '';
      for (let i = 0; i < 100 && !metrics.includes('outcome="delivered"'); i++) {
        metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(metrics).toContain('idp_delivery_attempts_total{kind="backchannel",outcome="retry"} 1');
      expect(metrics).toContain('idp_delivery_attempts_total{kind="backchannel",outcome="delivered"} 1');
    } finally {
      worker.kill('SIGTERM');
      await idp.close();
      await receiver.close();
    }
  },
  90_000,
);
