/**
 * The two short cookies of a sign-in through an upstream identity provider, both sealed (AES-256-GCM, secrets.ts),
 * HttpOnly and SameSite=Lax (the upstream sends the browser back with a top-level GET, which carries them):
 * - the request: what the callback needs to check the answer (state, nonce, PKCE verifier) and where the sign-in
 *   goes on (application, interaction). Named after its state and scoped to the source's callback path, so several
 *   sign-ins in one browser do not meet, and sealed with the state as associated data: the state in the callback's
 *   query must be the one this browser was sent with, or nothing opens.
 * - the identity: who the upstream said the person is, from the callback to the sign-in page of the interaction
 *   (scoped to it, and sealed with the interaction and source as associated data).
 * - SAML only, the answer: a SAML IdP posts its answer across sites, and a Lax cookie does not come with a cross-site
 *   POST, so the assertion consumer service keeps what the verified answer said in a third cookie (named and sealed
 *   like the request, by the RelayState) and sends the browser to itself with a GET, which brings both.
 * Each is read once: reading clears it.
 */
import type { Context } from 'koa';
import { secretsFrom } from '../domain/secrets.js';
import type { UpstreamIdentity } from '../domain/source-links.js';
import { callbackPath } from './upstreams.js';

/** Long enough to sign in at the upstream, second factor and all. */
const REQUEST_SECONDS = 15 * 60;
/** From the callback to the sign-in page: one redirect. */
const IDENTITY_SECONDS = 5 * 60;

const IDENTITY_COOKIE = 'idp_upstream';

/** What a state looks like (openid-client's randomState: 32 random bytes, base64url). */
const STATE = /^[A-Za-z0-9_-]{32,128}$/;

export interface PendingRequest {
  app: string;
  uid: string;
  source: string;
  state: string;
  nonce?: string;
  /** oidc, oauth2: the PKCE verifier; saml: the AuthnRequest's ID, which the answer's InResponseTo must name. */
  verifier: string;
}

/** What a verified SAML answer said, until the browser comes back with its request cookie. */
export interface SamlAnswer {
  identity: UpstreamIdentity;
  inResponseTo: string;
}

const requestCookie = (state: string) => `idp_source_${state.slice(0, 16)}`;
const answerCookie = (state: string) => `idp_saml_${state.slice(0, 16)}`;

export function flowCookies(secretKey: string, baseUrl: string) {
  const secrets = secretsFrom(secretKey);
  const https = baseUrl.startsWith('https:');

  function write(ctx: Context, name: string, value: string, path: string, seconds: number) {
    // The base URL decides Secure (behind a TLS proxy the connection itself may be plain http).
    if (https) ctx.cookies.secure = true;
    ctx.cookies.set(name, value || null, {
      path,
      httpOnly: true,
      sameSite: 'lax',
      secure: https,
      signed: false,
      maxAge: seconds * 1000,
      overwrite: true,
    });
  }

  function open<T>(sealed: string | undefined, aad: string): (T & { exp: number }) | undefined {
    if (!sealed) return undefined;
    try {
      const value = JSON.parse(secrets.unseal('source-flow', sealed, aad)) as T & { exp: number };
      return value.exp > Date.now() ? value : undefined;
    } catch {
      return undefined; // not ours, another state's, or tampered with
    }
  }

  const seal = (value: object, seconds: number, aad: string) =>
    secrets.seal('source-flow', JSON.stringify({ ...value, exp: Date.now() + seconds * 1000 }), aad);

  return {
    /** Keeps the request for the callback (`path`: the callback's, by default the OAuth one). */
    setRequest(ctx: Context, request: PendingRequest, path = callbackPath(request.source)) {
      write(ctx, requestCookie(request.state), seal(request, REQUEST_SECONDS, request.state), path, REQUEST_SECONDS);
    },
    /** The request the callback's `state` names, for this source; cleared. Undefined when there is none (forged, replayed, expired). */
    takeRequest(ctx: Context, source: string, state: unknown, path = callbackPath(source)): PendingRequest | undefined {
      if (typeof state !== 'string' || !STATE.test(state)) return undefined;
      const name = requestCookie(state);
      const sealed = ctx.cookies.get(name, { signed: false });
      if (sealed) write(ctx, name, '', path, 0);
      const request = open<PendingRequest>(sealed, state);
      return request && request.source === source && request.state === state ? request : undefined;
    },
    /** Keeps a verified SAML answer for the GET that follows (sealed with its RelayState). */
    setSamlAnswer(ctx: Context, state: string, answer: SamlAnswer, path: string) {
      write(ctx, answerCookie(state), seal(answer, IDENTITY_SECONDS, state), path, IDENTITY_SECONDS);
    },
    /** The SAML answer kept for this state; cleared. */
    takeSamlAnswer(ctx: Context, state: string, path: string): SamlAnswer | undefined {
      const name = answerCookie(state);
      const sealed = ctx.cookies.get(name, { signed: false });
      if (sealed) write(ctx, name, '', path, 0);
      const answer = open<SamlAnswer>(sealed, state);
      if (!answer) return undefined;
      return { identity: answer.identity, inResponseTo: answer.inResponseTo };
    },
    /** Hands the upstream identity to the interaction's sign-in page at `path`. */
    setIdentity(ctx: Context, path: string, uid: string, identity: UpstreamIdentity) {
      write(ctx, IDENTITY_COOKIE, seal(identity, IDENTITY_SECONDS, `${uid}:${identity.source}`), path, IDENTITY_SECONDS);
    },
    /** The identity handed to this interaction by this source's callback; cleared. */
    takeIdentity(ctx: Context, path: string, uid: string, source: string): UpstreamIdentity | undefined {
      const sealed = ctx.cookies.get(IDENTITY_COOKIE, { signed: false });
      if (sealed) write(ctx, IDENTITY_COOKIE, '', path, 0);
      const identity = open<UpstreamIdentity>(sealed, `${uid}:${source}`);
      if (!identity || identity.source !== source) return undefined;
      const { exp: _exp, ...rest } = identity;
      return rest;
    },
  };
}
export type FlowCookies = ReturnType<typeof flowCookies>;
