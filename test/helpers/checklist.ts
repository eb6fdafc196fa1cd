/**
 * Small steps for the security checklist tests (test/security/checklist-*.test.ts) that need more control than
 * httpSignIn: a prepared authorization request (own state, nonce, redirect_uri), who a cookie jar is signed in
 * as, a jar that records every Set-Cookie, and the claims of an ID token (decoded, not verified: the tokens
 * tests verify signatures).
 */
import { CookieClient, pkceRequest, submit, type HttpResponse, type PkceRequest } from './http-client.js';
import { postToken } from './oidc-rp.js';
import type { TestApp } from './oidc-server.js';

/**
 * A CookieClient that keeps every Set-Cookie header it received, and every response. With `origin`, URLs of
 * the public origin `origin.from` (an https base URL) are sent to the listener `origin.to` instead.
 */
export class RecordingClient extends CookieClient {
  readonly setCookies: string[] = [];
  readonly responses: HttpResponse[] = [];

  constructor(private readonly origin?: { from: string; to: string }) {
    super();
  }

  override async request(url: string, init: Parameters<CookieClient['request']>[1] = {}): Promise<HttpResponse> {
    const target = this.origin && url.startsWith(this.origin.from) ? this.origin.to + url.slice(this.origin.from.length) : url;
    const response = await super.request(target, init);
    this.setCookies.push(...response.headers.getSetCookie());
    this.responses.push(response);
    return response;
  }
}

/** The value of the cookie `name` in the jar, if any. */
export const cookieValue = (http: CookieClient, name: string) => http.cookies.find((c) => c.name === name)?.value;

/** The claims of a JWT, decoded without verification. */
export function jwtClaims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

/** Opens `request` and stops at the first page (the e-mail page), or at `stopAt` when the session answers. */
export async function firstPage(http: CookieClient, request: PkceRequest, stopAt: string): Promise<HttpResponse | URL> {
  return http.follow(await http.request(request.url.href), stopAt);
}

/** E-mail then password for a prepared request; returns the URL the browser was sent to under `stopAt`. */
export async function signInWith(http: CookieClient, request: PkceRequest, stopAt: string, email: string, password: string): Promise<URL> {
  const page = await firstPage(http, request, stopAt);
  if (page instanceof URL) return page;
  const passwordPage = await submit(http, page, { email });
  const done = await http.follow(await submit(http, passwordPage, { password }), stopAt);
  if (!(done instanceof URL)) throw new Error(`sign-in did not reach ${stopAt}: ${done.status} ${done.text.slice(0, 300)}`);
  return done;
}

/** Redeems a code with any client's credentials and any redirect_uri (client_secret_post). */
export function redeem(baseUrl: string, client: TestApp, code: string, verifier: string, redirectUri = client.redirect_uri) {
  return postToken(baseUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: client.client_id,
    client_secret: client.client_secret,
    code_verifier: verifier,
  });
}

export function refresh(baseUrl: string, client: TestApp, refreshToken: string) {
  return postToken(baseUrl, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
}

/** UserInfo at `path` (the shared endpoint by default) with a bearer token. */
export async function userinfo(baseUrl: string, accessToken: string, path = '/application/o/userinfo/') {
  const response = await fetch(baseUrl + path, { headers: { Authorization: `Bearer ${accessToken}` } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.startsWith('{') ? JSON.parse(text) : text };
}

/**
 * Whom the jar's session signs in to `app`: a prompt=none request, and the sub of the ID token it yields;
 * undefined when the engine answers login_required (nobody is signed in).
 */
export async function signedInAs(http: CookieClient, app: TestApp, baseUrl: string): Promise<string | undefined> {
  const request = await pkceRequest(app, baseUrl, { prompt: 'none' });
  const landed = await firstPage(http, request, app.redirect_uri);
  if (!(landed instanceof URL)) throw new Error(`prompt=none showed a page: ${landed.status} ${landed.text.slice(0, 300)}`);
  const code = landed.searchParams.get('code');
  if (!code) {
    if (landed.searchParams.get('error') !== 'login_required') throw new Error(`prompt=none answered ${landed.href}`);
    return undefined;
  }
  const tokens = await redeem(baseUrl, app, code, request.verifier);
  if (tokens.status !== 200) throw new Error(`redeeming the prompt=none code failed: ${JSON.stringify(tokens.body)}`);
  return jwtClaims(tokens.body.id_token).sub as string;
}
