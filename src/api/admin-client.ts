/**
 * A client of /api/v3/admin for the CLI: when `idp serve` holds the embedded database, `idp tokens` and
 * `idp keys` do their work through the running server instead. Answers become the error contract's errors, so
 * the CLI reports them as it reports its own (404 → NotFoundError, 400 → ValidationError).
 */
import { NotFoundError, ValidationError } from '../errors.js';
import type { ApiTokenView, SigningKeyRotationView, SigningKeyView } from './admin-views.js';

export interface AdminClient {
  /** The server's origin, e.g. http://127.0.0.1:9000. */
  readonly url: string;
  listTokens(): Promise<ApiTokenView[]>;
  createToken(input: { name: string; scopes: string[]; expires_in_days?: number }): Promise<ApiTokenView & { token: string }>;
  revokeToken(id: string): Promise<void>;
  listKeys(): Promise<SigningKeyView[]>;
  rotateKeys(): Promise<SigningKeyRotationView>;
}

interface Page<T> {
  pagination: { current: number; total_pages: number };
  results: T[];
}

// Generous: a rotation generates an RSA key, and a busy server may queue the request a while.
const TIMEOUT_MS = 30_000;

export function adminClient(url: string, token: string): AdminClient {
  const base = `${url.replace(/\/$/, '')}/api/v3/admin`;

  async function call(method: string, path: string, json?: unknown, notFound = 'resource'): Promise<any> {
    let response: Response;
    try {
      response = await fetch(base + path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: json === undefined ? undefined : JSON.stringify(json),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      throw new Error(`cannot reach the running server at ${url}: ${cause} (set HOST/PORT to where \`idp serve\` listens)`);
    }
    const text = await response.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      throw new Error(`the server at ${url} answered ${response.status} with something other than JSON (is it this identity service?)`);
    }
    if (response.ok) return body;
    const detail = typeof body?.detail === 'string' ? body.detail : undefined;
    if (response.status === 400 && body && !detail) throw new ValidationError(body as Record<string, string[]>);
    if (response.status === 404) throw new NotFoundError(notFound);
    if (response.status === 401 || response.status === 403) {
      throw new Error(`the running server at ${url} refused the admin token (IDP_ADMIN_TOKEN or --token): ${detail ?? response.status}`);
    }
    throw new Error(`the running server at ${url} answered ${response.status}: ${detail ?? text}`);
  }

  /** Every page, asked of this origin (the `next` links are built from issuer.base_url, which may be a proxy's). */
  async function all<T>(path: string): Promise<T[]> {
    const rows: T[] = [];
    for (let page = 1; ; page++) {
      const answer = (await call('GET', `${path}?page=${page}&page_size=100`)) as Page<T>;
      rows.push(...answer.results);
      if (answer.pagination.current >= answer.pagination.total_pages) return rows;
    }
  }

  return {
    url,
    listTokens: () => all<ApiTokenView>('/tokens/'),
    createToken: (input) => call('POST', '/tokens/', input),
    revokeToken: async (id) => {
      // Escaped: the id comes from the command line. Whatever names no revocable token answers 404, as locally.
      await call('DELETE', `/tokens/${encodeURIComponent(id)}/`, undefined, 'API token');
    },
    listKeys: () => all<SigningKeyView>('/keys/'),
    rotateKeys: () => call('POST', '/keys/rotate/'),
  };
}
