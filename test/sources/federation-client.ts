/**
 * A browser without the browser, for sign-ins that cross origins: one cookie jar per origin (the upstream and the
 * service each keep their own cookies, as a browser keeps those of localhost and 127.0.0.1 apart), manual redirects,
 * and the sign-in page's forms picked by their action.
 */
import { CookieClient, type HttpResponse } from '../helpers/http-client.js';

export class FederationClient {
  private readonly jars = new Map<string, CookieClient>();

  /** The jar of `url`'s origin (tests copy and restore its cookies to replay a request). */
  jar(url: string): CookieClient {
    const origin = new URL(url).origin;
    let jar = this.jars.get(origin);
    if (!jar) this.jars.set(origin, (jar = new CookieClient()));
    return jar;
  }

  request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<HttpResponse> {
    return this.jar(url).request(url, init);
  }

  /** Follows redirects until a page answers, or until the next hop starts with one of `stopAt` (returned as a URL). */
  async follow(response: HttpResponse, ...stopAt: string[]): Promise<HttpResponse | URL> {
    let current = response;
    for (let hops = 0; hops < 15; hops++) {
      if (current.status < 300 || current.status >= 400) return current;
      const next = new URL(current.headers.get('location')!, current.url);
      if (stopAt.some((prefix) => next.href.startsWith(prefix))) return next;
      current = await this.request(next.href);
    }
    throw new Error(`too many redirects from ${response.url}`);
  }
}

/** The form of `page` whose action ends with `suffix`, with its hidden fields. */
export function formEndingWith(page: HttpResponse, suffix: string): { action: string; fields: Record<string, string> } {
  for (const form of page.text.matchAll(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)) {
    const action = new URL(form[1]!.replace(/&amp;/g, '&'), page.url).href;
    if (!action.endsWith(suffix)) continue;
    const fields: Record<string, string> = {};
    for (const input of form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(input[0])?.[1];
      if (name) fields[name] = (/value="([^"]*)"/.exec(input[0])?.[1] ?? '').replace(/&amp;/g, '&');
    }
    return { action, fields };
  }
  throw new Error(`no form ending with ${suffix} on ${page.url} (${page.status}): ${page.text.slice(0, 400)}`);
}

export const isPage = (value: HttpResponse | URL): value is HttpResponse => !(value instanceof URL);

/** The first heading of a page. */
export const headingOf = (page: HttpResponse) => /<h1>([\s\S]*?)<\/h1>/.exec(page.text)?.[1]?.trim();
