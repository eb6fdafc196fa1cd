/**
 * Finds who a request to a shared endpoint is from: the client id (and secret) from HTTP Basic or from the form
 * (token, introspection, revocation, a POSTed authorization request). Reading the form consumes the stream, so
 * the raw buffer is left on `req.body`, where the engine looks when the stream is gone.
 */
import { parse } from 'node:querystring';
import type { Context } from 'koa';
import { AppError } from '../errors.js';

const LIMIT = 56 * 1024; // the engine's own form limit

export interface ClientCredentials {
  clientId?: string;
  /** Present for client_secret_basic and client_secret_post. */
  secret?: string;
}

/** application/x-www-form-urlencoded, with or without parameters (what type-is matches, without its parsing). */
const FORM_TYPE = /^\s*application\/x-www-form-urlencoded\s*(;|$)/i;

const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));

function fromBasic(header: string | undefined): ClientCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    // RFC 6749 §2.3.1: both parts are form-encoded before Basic encoding.
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** The raw body, read to the end even past the limit (stopping early would cut the connection before the answer). */
function readBody(req: Context['req']): Promise<{ chunks: Buffer[]; size: number }> {
  // Events rather than `for await`: its iterator costs every token request a few promises more.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    if (req.readableEnded) return resolve({ chunks, size });
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= LIMIT) chunks.push(chunk);
    });
    req.once('end', () => resolve({ chunks, size }));
    req.once('error', reject);
  });
}

async function readForm(ctx: Context): Promise<Record<string, unknown>> {
  const { chunks, size } = await readBody(ctx.req);
  if (size > LIMIT) throw new AppError(`the form is larger than ${LIMIT / 1024} KiB`, { status: 413 });
  const body = Buffer.concat(chunks);
  (ctx.req as unknown as { body?: Buffer }).body = body;
  return parse(body.toString('utf8'));
}

/** The form of a POST, read once (later calls return the same). */
export async function formOf(ctx: Context): Promise<Record<string, unknown>> {
  const state = ctx.state as { form?: Record<string, unknown> };
  if (!state.form) state.form = ctx.method === 'POST' && FORM_TYPE.test(ctx.get('Content-Type')) ? await readForm(ctx) : {};
  return state.form;
}

export async function readClientCredentials(ctx: Context): Promise<ClientCredentials> {
  const basic = fromBasic(ctx.get('Authorization'));
  if (basic) return basic;
  const form = await formOf(ctx);
  return {
    clientId: typeof form.client_id === 'string' ? form.client_id : undefined,
    secret: typeof form.client_secret === 'string' ? form.client_secret : undefined,
  };
}
