/**
 * The routes of sign-in through upstream identity providers: on the interaction's router, the button's post
 * (start), the page the callback hands the identity to (resume) and the proof of an existing account (link); on its
 * own, the callback every upstream sends the browser back to, `{base_url}/source/oauth/callback/{source}/`.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { startUpstreamSignIn } from './start.js';
import { resumeFromSource } from './resume.js';
import { submitLink } from './submit-link.js';
import { upstreamCallback } from './callback.js';
import type { SourceDeps } from './state.js';

/** Adds the routes under /if/flow/{slug}/{uid}/: `posted` parses the form, loads the interaction, checks CSRF. */
export function addSourceRoutes(router: Router, deps: SourceDeps, load: Middleware, posted: Middleware[]): void {
  router.post('/source/:source', ...posted, startUpstreamSignIn(deps) as unknown as Middleware);
  router.get('/source/:source/continue', load, resumeFromSource(deps) as unknown as Middleware);
  router.post('/link', ...posted, submitLink(deps) as Middleware);
}

export function callbackRouter(deps: SourceDeps): Router {
  const router = new Router({ prefix: '/source/oauth' });
  router.get('/callback/:source/', upstreamCallback(deps) as unknown as Middleware);
  return router;
}
