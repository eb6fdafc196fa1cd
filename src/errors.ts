/**
 * The error contract, as koa and oidc-provider have it: every error raised on purpose is an AppError carrying
 * the HTTP `status` it means and whether its message may be shown (`expose`). Families: domain (NotFoundError,
 * ValidationError: no HTTP shape of their own), API (ApiError: its JSON body), protocol (ProtocolError: an
 * OAuth error), pages (PageError: words for people), and Unavailable (a dependency does not answer). One
 * middleware (src/render-errors.ts) renders each in its family's shape; anything else is a bug: logged once
 * with its stack and answered generically. Nothing here knows Koa, so every layer may raise these.
 */
import type { Text } from './i18n/messages.js';

export interface AppErrorOptions {
  status?: number;
  /** Whether the message may be shown to the client (default: below 500). */
  expose?: boolean;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly expose: boolean;
  readonly headers: Record<string, string>;
  constructor(message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status ?? 500;
    this.expose = options.expose ?? this.status < 500;
    this.headers = options.headers ?? {};
  }
}

/** A resource that does not exist (API: 404 {"detail": "Not found."}). */
export class NotFoundError extends AppError {
  constructor(what = 'resource') {
    super(`${what} not found`, { status: 404 });
  }
}

/** Input that breaks a rule; `fields` maps a field name to its messages (API: 400 field map). */
export class ValidationError extends AppError {
  constructor(readonly fields: Record<string, string[]>) {
    super(
      Object.entries(fields)
        .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
        .join('; '),
      { status: 400 },
    );
  }
}

/**
 * A value another record already holds (a username, an e-mail, a group name): a ValidationError to the API (its
 * 400 field map), a 409 `uniqueness` to SCIM, which tells the two apart by this class.
 */
export class UniquenessError extends ValidationError {}

/** A SCIM answer (RFC 7644 §3.12): `status`, an optional `scimType` and a `detail` for people. */
export class ScimError extends AppError {
  constructor(
    status: number,
    readonly scimType: string | undefined,
    readonly detail: string,
    headers: Record<string, string> = {},
  ) {
    super(detail, { status, headers, expose: true });
  }
}

/** A provisioning-API answer in one of its two body shapes: `{"detail": "..."}` or `{"field": ["..."]}`. */
export class ApiError extends AppError {
  constructor(
    status: number,
    readonly body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : JSON.stringify(body), { status, headers, expose: true });
  }
}

/** An OAuth error at a JSON endpoint: `{"error": ..., "error_description": ...}` (RFC 6749 §5.2). */
export class ProtocolError extends AppError {
  constructor(
    status: number,
    readonly error: string,
    readonly description: string,
    headers: Record<string, string> = {},
  ) {
    super(description, { status, headers, expose: true });
  }
}

/** A way on from an error page: back to the application, or start again. */
export interface PageLink {
  href: string;
  label: string | Text;
}

/**
 * An error page for people: a heading, a plain-language message, and a way on when there is one. Each is a
 * catalogue key (or a Text with values), translated when the page is rendered; the Error's message is the key.
 */
export class PageError extends AppError {
  readonly heading: string | Text;
  readonly title: string | Text;
  readonly text: string | Text;
  readonly link?: PageLink;
  /** Shown small below the message, e.g. the OAuth error code for support. */
  readonly code?: string;
  constructor(
    status: number,
    page: { heading: string | Text; message: string | Text; title?: string | Text; link?: PageLink; code?: string },
    cause?: unknown,
  ) {
    super(typeof page.message === 'string' ? page.message : page.message.key, { status, expose: true, cause });
    this.text = page.message;
    this.heading = page.heading;
    this.title = page.title ?? page.heading;
    this.link = page.link;
    this.code = page.code;
  }
}

/** How long a client should wait before trying again after a 503 (Retry-After, seconds). */
export const RETRY_AFTER_SECONDS = 5;

/** A dependency (the database, the mail queue) does not answer, or the database cannot write: 503, try again shortly. */
export class Unavailable extends AppError {
  constructor(what: string, cause?: unknown) {
    super(`${what} is unavailable; try again shortly.`, {
      status: 503,
      expose: true,
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      cause,
    });
  }
}

/** The Unavailable behind an error, however deep in its causes (e.g. wrapped for the engine). */
export function unavailableIn(error: unknown): Unavailable | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    if (current instanceof Unavailable) return current;
  }
  return undefined;
}
