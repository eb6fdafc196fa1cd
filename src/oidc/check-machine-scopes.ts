/**
 * The scopes of a client-credentials request: only the application's own api_scopes. The engine lets scopes it
 * was not configured with pass through (and drops them); a machine client asking for one should hear so.
 */
import type { Context } from 'koa';
import type { ApplicationSettings } from '../settings/schema.js';
import { ProtocolError } from '../errors.js';
import { formOf } from './read-client.js';

export async function checkMachineScopes(ctx: Context, app: ApplicationSettings): Promise<void> {
  const form = await formOf(ctx);
  if (form.grant_type !== 'client_credentials' || typeof form.scope !== 'string') return;
  const refused = form.scope.split(' ').filter((scope) => scope && !app.api_scopes.includes(scope));
  if (refused.length) throw new ProtocolError(400, 'invalid_scope', `scope not allowed for this client: ${refused.join(' ')}`);
}
