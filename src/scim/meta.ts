/**
 * A resource's `meta` (RFC 7643 §3.1) and its version: a weak ETag over what the resource shows (`versioned`), so
 * it changes with any of it — a user's groups too, which no row's timestamp follows. A group's version leaves its
 * members out: a list of groups without members (excludedAttributes=members) must not read them to tell it.
 */
import { createHash } from 'node:crypto';
import type { Resource } from './conform.js';
import { scimError } from './errors.js';

export const scimBase = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}/scim/v2`;

export function withMeta(
  resource: Resource,
  meta: { resourceType: 'User' | 'Group'; created: Date; lastModified: Date; location: string },
  versioned: unknown = resource,
): Resource {
  const digest = createHash('sha256').update(JSON.stringify(versioned)).digest('base64url').slice(0, 22);
  return {
    ...resource,
    meta: {
      resourceType: meta.resourceType,
      created: meta.created.toISOString(),
      lastModified: meta.lastModified.toISOString(),
      location: meta.location,
      version: `W/"${digest}"`,
    },
  };
}

export const versionOf = (resource: Resource) => (resource.meta as { version: string }).version;

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/**
 * If-Match (RFC 7644 §3.14): a write to a resource whose version is no longer the one the client holds answers
 * 412 and changes nothing. Without the header every write goes through.
 */
export function checkIfMatch(header: string | undefined, current: string): void {
  if (!header) return;
  const tags = header.split(',').map(opaque);
  if (tags.includes('*') || tags.includes(opaque(current))) return;
  throw scimError(412, undefined, 'The resource changed since the version given in If-Match; read it again.');
}
