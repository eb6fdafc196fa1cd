/**
 * A browser without the browser: fetch with a cookie jar and manual redirects, and the sign-in pages' forms
 * filled by parsing their HTML. For tests that need many sign-ins (load, fuzzing) or to see every response.
 */
import * as client from 'openid-client';
import type { TestApp } from './oidc-server.js';

interface Cookie {
  name: string;
  value: string;
  path: string;
}

export interface HttpResponse {
  status: number;
  url: string;
  headers: Headers;
  text: string;
}

/** How a request goes out: fetch, or a load test's balancer that spreads requests over replicas (test/load/balancer.ts). */
export type Send = (url: URL, init: RequestInit) => Promise<Response>;

export class CookieClient {
  readonly cookies: Cookie[] = [];

  constructor(private readonly send: Send = fetch) {}

  private store(setCookies: string[]) {
    for (const header of setCookies) {
      const [pair, ...attributes] = header.split(';').map((part) => part.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) || '/';
      const expired = attributes.some(
        (a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()),
      );
      const index = this.cookies.findIndex((c) => c.name === name && c.path === path);
      if (index >= 0) this.cookies.splice(index, 1);
      if (!expired && value) this.cookies.push({ name, value, path });
    }
  }

  private header(url: URL): string {
    return this.cookies
      .filter((c) => url.pathname.startsWith(c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** One request, no redirects followed. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string>; body?: string } = {},
  ): Promise<HttpResponse> {
    const target = new URL(url);
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.header(target);
    if (cookie) headers.Cookie = cookie;
    let body = init.body;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    const response = await this.send(target, {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    this.store(response.headers.getSetCookie());
    return { status: response.status, url: target.href, headers: response.headers, text: await response.text() };
  }

  /**
   * Follows redirects until a page answers, or until the next hop would leave for `stopAt` (the application's
   * callback). The engine's self-submitting pages (form_post, e.g. ending A's session when B signs in) are
   * submitted, as a browser's script would.
   */
  async follow(response: HttpResponse, stopAt?: string): Promise<HttpResponse | URL> {
    let current = response;
    for (let hops = 0; hops < 10; hops++) {
      if (current.status === 200 && current.text.includes('<title>Submitting Callback</title>')) {
        const form = formOf(current);
        current = await this.request(form.action, { form: form.fields });
        continue;
      }
      if (current.status < 300 || current.status >= 400) break;
      const next = new URL(current.headers.get('location')!, current.url);
      if (stopAt && next.href.startsWith(stopAt)) return next;
      current = await this.request(next.href);
    }
    return current;
  }
}

/** The action and hidden fields of the page's (first) form. */
export function formOf(page: HttpResponse): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page.text);
  if (!form) throw new Error(`no form on ${page.url} (${page.status}): ${page.text.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
    if (name)
      fields[name] = value
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
  }
  return { action: new URL(form[1]!.replace(/&amp;/g, '&'), page.url).href, fields };
}

/** Submits the page's form with its hidden fields plus `fields`. */
export async function submit(http: CookieClient, page: HttpResponse, fields: Record<string, string>): Promise<HttpResponse> {
  const form = formOf(page);
  return http.request(form.action, { form: { ...form.fields, ...fields } });
}

export interface PkceRequest {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

export async function pkceRequest(app: TestApp, baseUrl: string, extra: Record<string, string> = {}): Promise<PkceRequest> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = new URL(`${baseUrl}/application/o/authorize/`);
  const params = {
    client_id: app.client_id,
    response_type: 'code',
    scope: 'openid profile email',
    redirect_uri: app.redirect_uri,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return { url, verifier, state, nonce };
}

export interface HttpSignIn {
  request: PkceRequest;
  callback: URL;
}

/** E-mail, then password, as a person would (or both on the first page); returns the application's callback URL. */
export async function httpSignIn(
  http: CookieClient,
  app: TestApp,
  baseUrl: string,
  email: string,
  password: string,
  options: { firstPageOnly?: boolean } = {},
): Promise<HttpSignIn> {
  const request = await pkceRequest(app, baseUrl);
  const emailPage = await http.follow(await http.request(request.url.href), app.redirect_uri);
  if (emailPage instanceof URL) return { request, callback: emailPage };
  // firstPageOnly: both fields of the first page filled in, as a password manager does; else e-mail, then password.
  const answer = options.firstPageOnly
    ? await submit(http, emailPage, { email, password })
    : await submit(http, await submit(http, emailPage, { email }), { password });
  const done = await http.follow(answer, app.redirect_uri);
  if (!(done instanceof URL)) throw new Error(`sign-in did not reach the callback: ${done.status} ${done.text.slice(0, 300)}`);
  return { request, callback: done };
}

/** Redeems the code at the shared token endpoint with client_secret_post. */
export async function redeemCode(
  app: TestApp,
  baseUrl: string,
  signIn: HttpSignIn,
  send: Send = fetch,
): Promise<{ status: number; body: any }> {
  const response = await send(new URL(`${baseUrl}/application/o/token/`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: signIn.callback.searchParams.get('code') ?? '',
      redirect_uri: app.redirect_uri,
      client_id: app.client_id,
      client_secret: app.client_secret,
      code_verifier: signIn.request.verifier,
    }).toString(),
  });
  return { status: response.status, body: await response.json() };
}

/** A page without its own script elements (src under /static/, nothing inline): what is left must hold no script. */
export const withoutOwnScripts = (html: string) => html.replace(/<script src="\/static\/[a-z]+\.js" defer><\/script>/g, '');
