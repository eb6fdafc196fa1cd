/**
 * The service's front door: `/` redirects to /welcome/, a small page saying what this is, whether it is ready
 * (the same checks as /-/health/ready/), and where each application's discovery document is.
 */
import Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import { checkReadiness, type ReadinessCheck } from '../observability/health.js';
import { renderPage } from './render-page.js';

export function landingRouter(settings: Settings, checks: ReadinessCheck[]): Router {
  const router = new Router();
  const base = settings.issuer.base_url.replace(/\/$/, '');
  router.get('/', (ctx) => {
    ctx.redirect('/welcome/');
  });
  router.get('/welcome/', async (ctx) => {
    const { ready, checks: states } = await checkReadiness(checks);
    renderPage(ctx, 'landing', {
      title: 'Identity service',
      ready,
      unavailable: Object.entries(states)
        .filter(([, state]) => state !== 'ok')
        .map(([name]) => name),
      applications: settings.applications.map((app) => ({
        name: app.name,
        discovery: `${base}/application/o/${app.slug}/.well-known/openid-configuration`,
      })),
    });
  });
  return router;
}
