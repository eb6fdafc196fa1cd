/** A revocation the engine accepted (RFC 7009) goes in the audit trail, with the calling client as actor. */
import type { Store } from '../../store/contract.js';
import { audit, currentActor } from '../../domain/audit.js';
import { formOf } from '../read-client.js';
import { applicationOf, type Step } from './state.js';

export function auditRevocation(store: Store): Step {
  return async function auditRevocation(ctx, next) {
    await next();
    if (ctx.status !== 200) return;
    const { app } = applicationOf(ctx);
    const hint = (await formOf(ctx)).token_type_hint;
    await audit(store, 'token.revoked', {
      app: app.slug,
      actor: { ...currentActor(), type: 'client', id: app.client_id },
      details: { hint: typeof hint === 'string' ? hint.slice(0, 40) : null },
    });
  };
}
