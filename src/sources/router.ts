/**
 * The routes of sign-in through upstream identity providers: on the interaction's router, the button's post
 * (start), the page the callback hands the identity to (resume) and the proof of an existing account (link); on its
 * own, the callback every upstream sends the browser back to, `{base_url}/source/oauth/callback/{source}/`, and for
 * SAML sources the assertion consumer service and the metadata under `{base_url}/source/saml/{source}/`.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { startUpstreamSignIn } from './start.js';
import { resumeFromSource } from './resume.js';
import { submitLink } from './submit-link.js';
import { upstreamCallback } from './callback.js';
import { samlAssertionConsumer, samlMetadataDocument, samlReturn } from './saml-flow.js';
import { parseForm } from '../http/forms.js';

/** A SAML answer with its signature and certificate is larger than a page's form. */
const SAML_FORM_LIMIT = 256 * 1024;
import type { SourceDeps } from './state.js';

/** Adds the routes under /if/flow/{slug}/{uid}/: `posted` parses the form, loads the interaction, checks CSRF. */
export function addSourceRoutes(router: Router, deps: SourceDeps, load: Middleware, posted: Middleware[]): void {
  router.post('/source/:source', ...posted, startUpstreamSignIn(deps) as unknown as Middleware);
  router.get('/source/:source/continue', load, resumeFromSource(deps) as unknown as Middleware);
  router.post('/link', ...posted, submitLink(deps) as Middleware);
}

/** The callbacks upstreams send the browser back to; for SAML also the service provider's metadata. */
export function callbackRouter(deps: SourceDeps): Router {
  const router = new Router({ prefix: '/source' });
  router.get('/oauth/callback/:source/', upstreamCallback(deps) as unknown as Middleware);
  router.post('/saml/:source/acs/', parseForm(SAML_FORM_LIMIT) as Middleware, samlAssertionConsumer(deps) as unknown as Middleware);
  router.get('/saml/:source/acs/', samlReturn(deps) as unknown as Middleware);
  router.get('/saml/:source/metadata/', samlMetadataDocument(deps) as unknown as Middleware);
  return router;
}
