/**
 * The service's front door: `/` redirects to /welcome/, a small page saying what this is, whether it is ready
 * (the same checks as /-/health/ready/), and the applications the operator made public
 * (`landing.public_applications`): a link to each and to its discovery document. Anyone may open the page, so it
 * names no other application.
 */
import Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import { checkReadiness, type ReadinessCheck } from '../observability/health.js';
import { applicationHome } from '../domain/applications.js';
import { renderPage } from './render-page.js';

export function landingRouter(settings: Settings, checks: ReadinessCheck[]): Router {
  const router = new Router();
  const base = settings.issuer.base_url.replace(/\/$/, '');
  // In the order the operator listed them; validation made sure each slug is an application's.
  const shown = settings.landing.public_applications
    .map((slug) => settings.applications.find((app) => app.slug === slug)!)
    .map((app) => ({
      name: app.name,
      home: applicationHome(app.redirect_uris),
      discovery: `${base}/application/o/${app.slug}/.well-known/openid-configuration`,
    }));
  router.get('/', (ctx) => {
    ctx.redirect('/welcome/');
  });
  router.get('/welcome/', async (ctx) => {
    const { ready, checks: states } = await checkReadiness(checks);
    renderPage(ctx, 'landing', {
      title: 'landing.title',
      ready,
      unavailable: Object.entries(states)
        .filter(([, state]) => state !== 'ok')
        .map(([name]) => name),
      applications: shown,
    });
  });
  return router;
}
