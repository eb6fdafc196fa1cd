/**
 * GET {base_url}/source/oauth/callback/{source}/: where the upstream sends the browser back. In order: the request
 * this browser started (the cookie named and sealed by the state: a forged state, or a callback replayed from
 * elsewhere, finds none), the state spent on the server (a second use of the same answer is refused), the upstream's
 * error if it sent one, then the code exchanged (PKCE) and the answer verified by openid-client (oidc: the ID token's
 * issuer, audience, expiry, nonce and signature against the upstream's JWKS), and who the person is. The identity
 * goes to the interaction's own page (resume.ts) in a sealed cookie; the account decisions are made there.
 * Every failure ends on a page that says what happened and leads back to the sign-in, never a stack or a 500.
 */
import type { Context } from 'koa';
import * as client from 'openid-client';
import { PageError } from '../errors.js';
import { text, type Text } from '../i18n/messages.js';
import { interactionPath } from '../interactions/state.js';
import { stateChallenge, statePurpose, unreachable } from './start.js';
import { upstreamIdentity } from './identity.js';
import type { Upstream } from './upstreams.js';
import type { SourceDeps } from './state.js';

type CallbackDeps = Pick<SourceDeps, 'store' | 'settings' | 'upstreams' | 'cookies' | 'services'>;

/**
 * Upstream error codes people can act on, in their words (catalogue keys, locales/en/sources.json); anything else is
 * shown as the upstream's own code.
 */
const REFUSALS: Record<string, string> = {
  access_denied: 'sources.refused.access_denied',
  login_required: 'sources.refused.login_required',
  consent_required: 'sources.refused.consent_required',
  interaction_required: 'sources.refused.interaction_required',
  temporarily_unavailable: 'sources.refused.temporarily_unavailable',
};

/** A callback that belongs to no sign-in of this browser (forged, replayed, expired); saml-flow.ts's too. */
export const expiredRequest = () =>
  new PageError(400, {
    title: 'sign_in.error_title',
    heading: 'sources.expired.heading',
    message: 'sources.expired.message',
  });

/** Network failures (nothing answered) read differently from answers that do not hold up. */
const unanswered = (error: unknown) =>
  error instanceof TypeError ||
  (error as { name?: string }).name === 'TimeoutError' ||
  (error as { name?: string }).name === 'AbortError' ||
  (error as { cause?: { name?: string } }).cause?.name === 'TimeoutError';

export function upstreamCallback(deps: CallbackDeps) {
  return async function upstreamCallback(ctx: Context & { params: Record<string, string> }) {
    const upstream = deps.upstreams.get(ctx.params.source ?? '');
    if (!upstream) throw expiredRequest();
    const request = deps.cookies.takeRequest(ctx, upstream.source.slug, ctx.query.state);
    if (!request) throw expiredRequest();
    const back = interactionPath(request.app, request.uid);
    const spent = await deps.store.passkeys.consumeChallenge(
      stateChallenge(deps.settings.secrets.key, request.state),
      statePurpose(request.uid),
      new Date(),
    );
    if (!spent) throw expiredRequest();

    const { name } = upstream.source;
    const refused = (message: string | Text, code?: string, cause?: unknown) =>
      new PageError(
        400,
        {
          title: 'sign_in.error_title',
          heading: text('sources.refused.heading', { source: name }),
          message,
          code,
          link: { href: back, label: 'sources.back_to_sign_in' },
        },
        cause,
      );
    if (typeof ctx.query.error === 'string') {
      const code = ctx.query.error.slice(0, 64).replace(/[^\x20-\x7e]/g, '');
      throw refused(REFUSALS[code] ?? text('sources.refused.other', { source: name }), code);
    }

    let identity;
    try {
      const config = await upstream.configuration();
      const tokens = await client.authorizationCodeGrant(config, new URL(`${upstream.redirectUri}?${ctx.querystring}`), {
        pkceCodeVerifier: request.verifier,
        expectedState: request.state,
        ...(request.nonce ? { expectedNonce: request.nonce } : {}),
        idTokenExpected: upstream.source.type === 'oidc',
      });
      identity = await upstreamIdentity(upstream.source, config, tokens);
    } catch (error) {
      throw failed(deps, upstream, back, error, refused);
    }
    if (upstream.source.groups_claim && !identity.groups)
      deps.services.logger?.info(
        { source: upstream.source.slug, claim: upstream.source.groups_claim },
        'upstream groups not synced: the claim is absent, not a list of names, or longer than 50 names (2,000 characters)',
      );
    deps.cookies.setIdentity(ctx, back, request.uid, identity);
    ctx.status = 303;
    ctx.redirect(`${back}source/${upstream.source.slug}/continue`);
  };
}

/** An exchange or verification that failed: logged for the operator (a wrong secret, a forged token), worded for people. */
function failed(
  deps: CallbackDeps,
  upstream: Upstream,
  back: string,
  error: unknown,
  refused: (message: string | Text, code?: string, cause?: unknown) => PageError,
): PageError {
  const slug = upstream.source.slug;
  if (unanswered(error)) {
    deps.services.logger?.warn({ source: slug, err: error }, 'upstream identity provider unreachable');
    return unreachable(upstream, back, error);
  }
  deps.services.logger?.warn({ source: slug, err: error }, 'upstream sign-in refused: its answer did not hold up');
  const code = error instanceof client.ResponseBodyError ? error.error.slice(0, 64) : (error as { code?: string }).code;
  return refused(text('sources.refused.not_verified', { source: upstream.source.name }), code, error);
}
