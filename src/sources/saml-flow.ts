/**
 * A sign-in through a SAML identity provider, in three steps (docs/federation.md):
 * 1. start (the button, or home-realm discovery): an AuthnRequest by the HTTP-Redirect binding, its ID stored as a
 *    single-use challenge of this sign-in and kept in the request cookie, which is named and sealed by the RelayState;
 * 2. the assertion consumer service (POST, across sites, so without this browser's cookies): node-saml verifies the
 *    answer (signature, Issuer, audience, recipient, validity, InResponseTo present); what it says is kept in a sealed
 *    cookie and the browser is sent to the same URL with a GET, which carries its cookies;
 * 3. that GET: the request cookie for the RelayState must be there (a forged or foreign RelayState finds none), the
 *    answer's InResponseTo must be its request's ID, and the ID's challenge is spent (a replayed answer finds none).
 *    Then, as for OpenID Connect, the identity goes to the interaction's own page (resume.ts).
 */
import type { Context } from 'koa';
import * as client from 'openid-client';
import type { CacheProvider } from '@node-saml/node-saml';
import { PageError } from '../errors.js';
import { text } from '../i18n/messages.js';
import { interactionPath, type InteractionContext } from '../interactions/state.js';
import type { Upstream } from './upstreams.js';
import type { SourceDeps } from './state.js';
import { acsPath, samlIdentity, serviceProvider, serviceProviderMetadata } from './saml.js';
import { OPEN_PER_INTERACTION, STATE_SECONDS, stateChallenge, statePurpose, unreachable } from './start.js';
import { expiredRequest } from './callback.js';

/**
 * Requests are checked at the GET (bound to the browser, spent once, within their lifetime); here node-saml only
 * needs InResponseTo to be there. It reads the value as the request's creation time: now passes its age check.
 */
const deferToTheBrowser: CacheProvider = {
  saveAsync: async (_key, value) => ({ value, createdAt: Date.now() }),
  getAsync: async () => new Date().toISOString(),
  removeAsync: async () => null,
};

async function reachMetadata(deps: SourceDeps, upstream: Upstream, back?: string) {
  try {
    return await upstream.samlMetadata();
  } catch (error) {
    deps.services.logger?.warn({ source: upstream.source.slug, err: error }, 'SAML identity provider metadata cannot be read');
    throw unreachable(upstream, back ?? '/', error);
  }
}

/** Step 1: the AuthnRequest, its ID spent once later; login_hint passed on as the query parameter Entra ID reads. */
export async function sendToSaml(ctx: InteractionContext, deps: SourceDeps, upstream: Upstream, hint: string | undefined) {
  const { entry, details, base } = ctx.state.interaction;
  const { source } = upstream;
  const idp = await reachMetadata(deps, upstream, base);
  const state = client.randomState();
  let requestId: string | undefined;
  const remember: CacheProvider = {
    ...deferToTheBrowser,
    saveAsync: async (key, value) => {
      requestId = key;
      await deps.store.passkeys.saveChallenge(
        stateChallenge(deps.settings.secrets.key, key),
        statePurpose(details.uid),
        new Date(Date.now() + STATE_SECONDS * 1000),
        OPEN_PER_INTERACTION,
      );
      return { value, createdAt: Date.now() };
    },
  };
  const sp = serviceProvider(source, deps.settings.issuer.base_url, idp, remember);
  const url = await sp.getAuthorizeUrlAsync(state, undefined, hint ? { additionalParams: { login_hint: hint } } : {});
  deps.cookies.setRequest(
    ctx,
    { app: entry.app.slug, uid: details.uid, source: source.slug, state, verifier: requestId! },
    acsPath(source.slug),
  );
  ctx.status = 303;
  ctx.redirect(url);
}

/** Step 2: POST {base_url}/source/saml/{slug}/acs/. */
export function samlAssertionConsumer(deps: SourceDeps) {
  return async function samlAssertionConsumer(ctx: Context & { params: Record<string, string> }) {
    const upstream = deps.upstreams.get(ctx.params.source ?? '');
    if (upstream?.source.type !== 'saml') throw expiredRequest();
    const { source } = upstream;
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const [response, state] = [body.SAMLResponse, body.RelayState];
    if (typeof response !== 'string' || typeof state !== 'string' || !response) throw expiredRequest();
    const idp = await reachMetadata(deps, upstream);
    let answer;
    try {
      const { profile } = await serviceProvider(source, deps.settings.issuer.base_url, idp, deferToTheBrowser).validatePostResponseAsync({
        SAMLResponse: response,
        RelayState: state,
      });
      if (!profile) throw new Error('the answer holds no assertion');
      answer = { identity: samlIdentity(source, profile), inResponseTo: String(profile.inResponseTo ?? '') };
    } catch (error) {
      deps.services.logger?.warn({ source: source.slug, err: error }, 'SAML answer refused: it did not hold up');
      throw new PageError(
        400,
        {
          title: 'sign_in.error_title',
          heading: text('sources.refused.heading', { source: source.name }),
          message: text('sources.refused.saml_not_verified', { source: source.name }),
        },
        error,
      );
    }
    deps.cookies.setSamlAnswer(ctx, state, answer, acsPath(source.slug));
    ctx.status = 303;
    ctx.redirect(`${deps.settings.issuer.base_url}${acsPath(source.slug)}?state=${encodeURIComponent(state)}`);
  };
}

/** Step 3: GET {base_url}/source/saml/{slug}/acs/?state=…, with this browser's cookies. */
export function samlReturn(deps: SourceDeps) {
  return async function samlReturn(ctx: Context & { params: Record<string, string> }) {
    const upstream = deps.upstreams.get(ctx.params.source ?? '');
    if (upstream?.source.type !== 'saml') throw expiredRequest();
    const path = acsPath(upstream.source.slug);
    const request = deps.cookies.takeRequest(ctx, upstream.source.slug, ctx.query.state, path);
    const answer = request && deps.cookies.takeSamlAnswer(ctx, request.state, path);
    if (!request || !answer || answer.inResponseTo !== request.verifier) throw expiredRequest();
    const spent = await deps.store.passkeys.consumeChallenge(
      stateChallenge(deps.settings.secrets.key, request.verifier),
      statePurpose(request.uid),
      new Date(),
    );
    if (!spent) throw expiredRequest();
    const back = interactionPath(request.app, request.uid);
    deps.cookies.setIdentity(ctx, back, request.uid, answer.identity);
    ctx.status = 303;
    ctx.redirect(`${back}source/${upstream.source.slug}/continue`);
  };
}

/** GET {base_url}/source/saml/{slug}/metadata/: this service provider's metadata (the entity ID is this URL). */
export function samlMetadataDocument(deps: SourceDeps) {
  return async function samlMetadataDocument(ctx: Context & { params: Record<string, string> }) {
    const upstream = deps.upstreams.get(ctx.params.source ?? '');
    if (upstream?.source.type !== 'saml') return; // 404
    ctx.type = 'application/samlmetadata+xml';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = serviceProviderMetadata(upstream.source, deps.settings.issuer.base_url);
  };
}
