/**
 * POST /if/flow/{slug}/{uid}/source/{source}: "Continue with {name}" on the sign-in page (a form with the page's
 * CSRF token); and the e-mail form's address in a source's `email_domains` (home-realm discovery). Sends the
 * browser to the upstream with the code flow: PKCE S256, a fresh state and (oidc) nonce, the application's
 * login_hint passed on (SAML sources: saml-flow.ts). The state is bound to this browser (the request cookie is
 * named after it and sealed with it) and spent once on the server (a stored challenge), so a forged or replayed
 * callback finds nothing.
 */
import * as client from 'openid-client';
import type { InteractionContext } from '../interactions/state.js';
import { PageError } from '../errors.js';
import { text } from '../i18n/messages.js';
import { secretsFrom } from '../domain/secrets.js';
import { offeredBy, type Upstream } from './upstreams.js';
import type { SourceDeps } from './state.js';
import { sendToSaml } from './saml-flow.js';
import { domainOf } from '../domain/email-address.js';

/** How long the callback may take to come back; also the stored state's life. */
export const STATE_SECONDS = 15 * 60;
/** Sign-ins through upstreams one interaction may have open at once (the store keeps the newest). */
export const OPEN_PER_INTERACTION = 5;

/** The stored, single-use form of a state: its keyed hash, for this interaction. */
export const stateChallenge = (secretKey: string, state: string) => secretsFrom(secretKey).hash('source-flow', state);
export const statePurpose = (uid: string) => `source:${uid}`;

/** The upstream by the slug in the path, when this application offers it; else a page that says it does not. */
export function offeredUpstream(ctx: InteractionContext, deps: SourceDeps, slug: string | undefined): Upstream {
  const { entry, base } = ctx.state.interaction;
  const upstream = offeredBy(entry.app, deps.upstreams).find((offered) => offered.source.slug === slug);
  if (!upstream)
    throw new PageError(404, {
      title: 'sign_in.error_title',
      heading: 'sources.not_offered.heading',
      message: text('sources.not_offered.message', { app: entry.app.name }),
      link: { href: base, label: 'sources.back_to_sign_in' },
    });
  return upstream;
}

/** The upstream's configuration, or a page that says it cannot be reached now (never a 500). */
export async function reach(deps: SourceDeps, upstream: Upstream, back: string) {
  try {
    return await upstream.configuration();
  } catch (error) {
    deps.services.logger?.warn({ source: upstream.source.slug, err: error }, 'upstream identity provider unreachable (discovery)');
    throw unreachable(upstream, back, error);
  }
}

export const unreachable = (upstream: Upstream, back: string, cause?: unknown) =>
  new PageError(
    502,
    {
      title: 'sign_in.error_title',
      heading: text('sources.unreachable.heading', { source: upstream.source.name }),
      message: text('sources.unreachable.message', { source: upstream.source.name }),
      link: { href: back, label: 'sources.back_to_sign_in' },
    },
    cause,
  );

export function startUpstreamSignIn(deps: SourceDeps) {
  return async function startUpstreamSignIn(ctx: InteractionContext & { params: Record<string, string> }) {
    const hint = ctx.state.interaction.details.params.login_hint;
    return sendToUpstream(ctx, deps, offeredUpstream(ctx, deps, ctx.params.source), typeof hint === 'string' ? hint : undefined);
  };
}

/**
 * Home-realm discovery, before the e-mail form's own step: an address in a domain of a source the application
 * offers (`email_domains`) goes to that source at once, the address as its login_hint. Other addresses go on.
 */
export function homeRealm(deps: SourceDeps) {
  return async function homeRealm(ctx: InteractionContext, next: () => Promise<void>) {
    const email = String(ctx.request.body?.email ?? '').trim();
    const domain = domainOf(email);
    const upstream =
      email.includes('@') && domain
        ? offeredBy(ctx.state.interaction.entry.app, deps.upstreams).find(({ source }) => source.email_domains?.includes(domain))
        : undefined;
    if (!upstream) return next();
    return sendToUpstream(ctx, deps, upstream, email);
  };
}

/** Sends the browser to the upstream with the code flow (PKCE S256, fresh state and nonce), the hint passed on. */
async function sendToUpstream(ctx: InteractionContext, deps: SourceDeps, upstream: Upstream, hint: string | undefined) {
  if (upstream.source.type === 'saml') return sendToSaml(ctx, deps, upstream, hint);
  const { entry, details, base } = ctx.state.interaction;
  const config = await reach(deps, upstream, base);
  const { source } = upstream;
  const state = client.randomState();
  const nonce = source.type === 'oidc' ? client.randomNonce() : undefined;
  const verifier = client.randomPKCECodeVerifier();
  await deps.store.passkeys.saveChallenge(
    stateChallenge(deps.settings.secrets.key, state),
    statePurpose(details.uid),
    new Date(Date.now() + STATE_SECONDS * 1000),
    OPEN_PER_INTERACTION,
  );
  deps.cookies.setRequest(ctx, { app: entry.app.slug, uid: details.uid, source: source.slug, state, nonce, verifier });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: upstream.redirectUri,
    ...(source.scopes!.length ? { scope: source.scopes!.join(' ') } : {}),
    state,
    ...(nonce ? { nonce } : {}),
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...(hint ? { login_hint: hint } : {}),
  });
  ctx.status = 303;
  ctx.redirect(url.href);
}
