/**
 * Finds the client_id of a token request, from HTTP Basic or from the form. Reading the form consumes the
 * stream, so the raw buffer is left on `req.body`, where the engine looks when the stream is gone.
 */
import { parse } from 'node:querystring';
import type { Context } from 'koa';

const LIMIT = 56 * 1024; // the engine's own form limit

function fromBasic(header: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

async function readForm(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > LIMIT) break;
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  (ctx.req as unknown as { body?: Buffer }).body = body;
  return body;
}

export async function readTokenClientId(ctx: Context): Promise<string | undefined> {
  const basic = fromBasic(ctx.get('Authorization'));
  if (basic) return basic;
  if (!ctx.is('application/x-www-form-urlencoded')) return undefined;
  const form = parse((await readForm(ctx)).toString('utf8'));
  return typeof form.client_id === 'string' ? form.client_id : undefined;
}
