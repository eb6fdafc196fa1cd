/**
 * The webhook signer: the headers of one attempt. Two schemes over the same key, the secret's UTF-8 bytes:
 * - spec §6.1 `X-Service-Signature: sha256=<hex HMAC-SHA256 of the body>`, one value, with the newest secret;
 * - Standard Webhooks (standardwebhooks.com): `webhook-id` (the event id), `webhook-timestamp` (unix seconds of
 *   this attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one entry per active
 *   secret (newest first, space-separated), so a receiver holding either secret accepts it during a rotation
 *   and can refuse a replayed request by its timestamp.
 * A Standard Webhooks library takes the key as `whsec_` + base64(UTF-8 secret), or the raw bytes.
 */
import { createHmac } from 'node:crypto';
import type { ApplicationSettings } from '../src/settings/schema.js';

type Webhook = NonNullable<ApplicationSettings['webhook']>;

/** The secrets that sign, newest first: `secret`, then `previous_secret` during a rotation. */
export const activeSecrets = (webhook: Webhook): string[] =>
  [webhook.secret, webhook.previous_secret].filter((secret): secret is string => Boolean(secret));

export const signBody = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export const standardSignature = (secret: string, id: string, timestamp: number, body: string) =>
  `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

/** Every header of one attempt; `now` is the attempt's time (a retry is signed afresh with its own timestamp). */
export function webhookHeaders(secrets: string[], message: { id: string; body: string }, now = new Date()): Record<string, string> {
  if (!secrets.length) throw new Error('a webhook needs a secret to be signed');
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'identity-service-webhooks',
    'X-Service-Signature': signBody(secrets[0]!, message.body),
    'X-Service-Event-Id': message.id,
    'webhook-id': message.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => standardSignature(secret, message.id, timestamp, message.body)).join(' '),
  };
}
