/**
 * Every URL the service emits (issuers, discovery, JWKS, redirects, pagination) is built from the configured
 * base URL. The engine builds URLs from `ctx.href`, which Koa reads from the Host header, X-Forwarded-Host or
 * an absolute request target: all three are the client's to choose. This pins the request's origin instead.
 */
import type Koa from 'koa';

export function pinOrigin(app: Koa, baseUrl: string): void {
  const { protocol, host } = new URL(baseUrl);
  const scheme = protocol.slice(0, -1);
  Object.defineProperties(app.request, {
    host: { get: () => host, configurable: true },
    protocol: { get: () => scheme, configurable: true },
    href: {
      get(this: Koa.Request) {
        // An absolute-form request target ("GET http://evil.example/path") keeps only its path.
        const target = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.test(this.originalUrl)
          ? this.originalUrl.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')
          : this.originalUrl;
        return `${scheme}://${host}${target || '/'}`;
      },
      configurable: true,
    },
  });
}
