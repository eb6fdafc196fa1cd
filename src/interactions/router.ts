/** The sign-in pages under /if/flow/{slug}/{uid}/, plus their stylesheet and the generated avatars. */
import Router from '@koa/router';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { ProviderSet } from '../oidc/providers.js';
import { csrfTokens } from './csrf.js';
import { loadInteraction } from './load-interaction.js';
import { checkCsrf } from './check-csrf.js';
import { parseForm } from './parse-form.js';
import { showSignIn } from './show-sign-in.js';
import { submitEmail } from './submit-email.js';
import { submitPassword } from './submit-password.js';
import { serveStatic } from './serve-static.js';
import { serveAvatar } from './serve-avatar.js';

export function interactionMiddleware(providers: ProviderSet, store: Store, settings: Settings): Middleware {
  const csrf = csrfTokens(settings.secrets.key);
  const router = new Router({ prefix: '/if/flow/:slug/:uid' });
  const load = loadInteraction(providers, csrf) as Middleware;
  const posted = [parseForm() as Middleware, load, checkCsrf(csrf) as Middleware];
  router.get('/', load, showSignIn as Middleware);
  router.post('/email', ...posted, submitEmail as Middleware);
  router.post('/password', ...posted, submitPassword(store, settings) as Middleware);
  return compose<any>([serveStatic(), serveAvatar, router.routes(), router.allowedMethods()]) as Middleware;
}
