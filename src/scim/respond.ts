/** Answers with one resource: its version as the ETag (RFC 7644 §3.14), its location on a create, the attributes asked for. */
import type { Context } from 'koa';
import type { Resource } from './conform.js';
import { versionOf } from './meta.js';
import { project, type Projection } from './projection.js';
import type { ResourceSchema } from './schemas.js';
import { notFound } from './errors.js';
import { UUID } from '../uuid.js';

export function answerResource(ctx: Context, status: 200 | 201, resource: Resource, schema: ResourceSchema, projection: Projection): void {
  ctx.status = status;
  ctx.set('ETag', versionOf(resource));
  if (status === 201) ctx.set('Location', (resource.meta as { location: string }).location);
  ctx.body = project(resource, schema, projection);
}

/** The id of a path, lower-cased; an id that cannot name a resource answers 404 like an unknown one. */
export function resourceId(raw: string | undefined, what: 'User' | 'Group'): string {
  if (!raw || !UUID.test(raw)) throw notFound(what, String(raw ?? '').slice(0, 64));
  return raw.toLowerCase();
}
