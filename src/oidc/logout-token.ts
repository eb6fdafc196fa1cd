/**
 * Signs backchannel logout tokens (spec §2.5) with the application's own provider, so iss, aud, key and
 * algorithm are exactly those of its ID tokens. Called on every delivery attempt: each attempt carries a
 * fresh token (new jti, iat, exp), never a stale one replayed. This mirrors the engine's own
 * Client.prototype.backchannelLogout (lib/models/client.js, 9.13), whose sending we replace.
 */
import { randomUUID } from 'node:crypto';
import type { SignLogoutToken } from '../domain/logout.js';
import type { ProviderSet } from './providers.js';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export function logoutTokenSigner(providers: ProviderSet): SignLogoutToken {
  return async (clientId, sub, sid) => {
    const entry = providers.byClientId.get(clientId);
    if (!entry) throw new Error(`no application with client_id ${clientId}`);
    const { provider } = entry;
    const client = await provider.Client.find(clientId);
    if (!client) throw new Error(`the engine does not know client ${clientId}`);
    const token = new provider.IdToken({ sub }, { client, ctx: undefined as never });
    // Only sub from the claims; the engine's typ (logout+jwt), iss, aud, iat and exp (120 s) do the rest.
    (token as unknown as { mask: Record<string, null> }).mask = { sub: null };
    token.set('events', { [BACKCHANNEL_LOGOUT_EVENT]: {} });
    token.set('jti', randomUUID());
    // sid of the ended session (discovery promises backchannel_logout_session_supported); sub alone only for a
    // grant that outlived its browser session (src/domain/logout.ts).
    if (sid) token.set('sid', sid);
    return token.issue({ use: 'logout' });
  };
}
