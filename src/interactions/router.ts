/**
 * The sign-in pages under /if/flow/{slug}/{uid}/, the recovery links and invitations under /if/recovery/{token}/
 * and /if/invitation/{token}/, and the callback of upstream identity providers under /source/oauth/ (src/sources/).
 */
import Router from '@koa/router';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type { ApplicationSettings, Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { ticketSigner } from './tickets.js';
import type { SignInApps, SignInServices } from './state.js';
import { loadInteraction } from './load-interaction.js';
import { csrfTokens, parseForm } from '../http/forms.js';
import { checkCsrf } from './check-csrf.js';
import { showSignIn } from './show-sign-in.js';
import { submitEmail } from './submit-email.js';
import { submitPassword } from './submit-password.js';
import { submitSetup } from './submit-setup.js';
import { showForgot } from './show-forgot.js';
import { submitForgot } from './submit-forgot.js';
import { submitReset } from './submit-reset.js';
import { submitMfa } from './submit-mfa.js';
import { submitEnrolment } from './submit-enrolment.js';
import { submitFinish } from './submit-finish.js';
import { invitationLink, recoveryLink, showPasswordLink, submitPasswordLink } from './password-links.js';
import { passkeyEnrolOptions, passkeyOptions, submitPasskey, submitPasskeyEnrolment } from './submit-passkey.js';
import { relyingPartyOf } from '../domain/passkeys.js';
import { offeredBy, upstreamsFrom } from '../sources/upstreams.js';
import { flowCookies } from '../sources/flow-cookies.js';
import { addSourceRoutes, callbackRouter } from '../sources/router.js';
import { homeRealm } from '../sources/start.js';
import { showRegistration, submitRegistration, submitRegistrationCode } from './register.js';

export function interactionMiddleware(apps: SignInApps, store: Store, settings: Settings, services: SignInServices): Middleware {
  const csrf = csrfTokens(settings.secrets.key);
  const upstreams = upstreamsFrom(settings);
  const deps = {
    store,
    settings,
    services,
    tickets: ticketSigner(settings.secrets.key),
    rp: relyingPartyOf(settings.issuer.base_url),
    upstreams,
    cookies: flowCookies(settings.secrets.key, settings.issuer.base_url),
  };
  const router = new Router({ prefix: '/if/flow/:slug/:uid' });
  const offered = (app: ApplicationSettings) => offeredBy(app, upstreams).map(({ source }) => ({ slug: source.slug, name: source.name }));
  const load = loadInteraction(apps, csrf, offered) as Middleware;
  const posted = [parseForm() as Middleware, load, checkCsrf(csrf) as Middleware];
  router.get('/', load, showSignIn as Middleware);
  router.post('/email', ...posted, homeRealm(deps) as unknown as Middleware, submitEmail(deps) as Middleware);
  router.post('/password', ...posted, submitPassword(deps) as Middleware);
  router.post('/setup', ...posted, submitSetup(deps) as Middleware);
  router.get('/forgot', load, showForgot as Middleware);
  router.post('/forgot', ...posted, submitForgot(deps) as Middleware);
  router.post('/reset', ...posted, submitReset(deps) as Middleware);
  router.get('/register', load, showRegistration(deps) as Middleware);
  router.post('/register', ...posted, submitRegistration(deps) as Middleware);
  router.post('/register/code', ...posted, submitRegistrationCode(deps) as Middleware);
  router.post('/mfa', ...posted, submitMfa(deps) as Middleware);
  router.post('/enrol', ...posted, submitEnrolment(deps) as Middleware);
  router.post('/finish', ...posted, submitFinish(deps) as Middleware);
  router.post('/passkey/options', ...posted, passkeyOptions(deps) as Middleware);
  router.post('/passkey', ...posted, submitPasskey(deps) as Middleware);
  router.post('/passkey/enrol-options', ...posted, passkeyEnrolOptions(deps) as Middleware);
  router.post('/passkey/enrol', ...posted, submitPasskeyEnrolment(deps) as Middleware);
  addSourceRoutes(router, deps, load, posted);
  const callbacks = callbackRouter(deps);

  const links = new Router();
  for (const kind of [recoveryLink, invitationLink]) {
    links.get(`/if/${kind.path}/:token/`, showPasswordLink(kind, deps, csrf) as unknown as Middleware);
    links.post(`/if/${kind.path}/:token/`, parseForm() as Middleware, submitPasswordLink(kind, deps, csrf) as unknown as Middleware);
  }

  return compose<any>([
    router.routes(),
    router.allowedMethods(),
    links.routes(),
    links.allowedMethods(),
    callbacks.routes(),
    callbacks.allowedMethods(),
  ]) as Middleware;
}
