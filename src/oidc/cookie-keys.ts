/** Cookie signing keys for the providers and the parent app, derived from secrets.key so replicas agree. */
import { createHmac } from 'node:crypto';

export function cookieKeys(secret: string): string[] {
  return [createHmac('sha256', secret).update('idp cookie signing key v1').digest('base64url')];
}
