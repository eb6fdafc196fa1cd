/**
 * A browser without the browser, from an address of its choosing: the service under test trusts one proxy hop
 * (`server.trust_proxy`), so each visitor's X-Forwarded-For is its client IP, as an attacker with many addresses
 * would have it. Posts go straight to the sign-in's actions with its CSRF token, as a script would send them.
 */
import { CookieClient, formOf, pkceRequest, type HttpResponse } from '../helpers/http-client.js';
import type { OidcTestServer, TestApp } from '../helpers/oidc-server.js';

class FromAddress extends CookieClient {
  constructor(private readonly ip: string) {
    super();
  }
  override request(url: string, init: Parameters<CookieClient['request']>[1] = {}) {
    return super.request(url, { ...init, headers: { 'X-Forwarded-For': this.ip, ...init.headers } });
  }
}

export interface SignInVisit {
  http: CookieClient;
  /** The sign-in's id (the interaction uid). */
  uid: string;
  /** Posts `fields` (and the sign-in's CSRF token) to one of the sign-in's actions: `email`, `setup`, `mfa`, … */
  post(action: string, fields?: Record<string, string>): Promise<HttpResponse>;
}

/** A new sign-in to `app` from `ip`, at its first page. */
export async function visit(idp: OidcTestServer, app: TestApp, ip: string): Promise<SignInVisit> {
  const http = new FromAddress(ip);
  const first = await http.follow(await http.request((await pkceRequest(app, idp.url)).url.href), app.redirect_uri);
  if (first instanceof URL) throw new Error('signed in already');
  const { action, fields } = formOf(first);
  const base = action.replace(/email$/, '');
  return {
    http,
    uid: base.split('/').at(-2)!,
    post: (to, more = {}) => http.request(`${base}${to}`, { form: { csrf: fields.csrf!, ...more } }),
  };
}

/** The message a page shows in its alert, as a person reads it. */
export const alertOf = (page: HttpResponse) =>
  /role="alert"[^>]*>([^<]*)</
    .exec(page.text)?.[1]
    ?.replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** The value of the page's hidden field `name` (a stage ticket). */
export const hiddenField = (page: HttpResponse, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.text)?.[1] ?? '';

/** The first heading of a page. */
export const headingOf = (page: HttpResponse) => /<h1>([^<]*)<\/h1>/.exec(page.text)?.[1];
