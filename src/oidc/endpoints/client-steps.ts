/** Steps of the client endpoints beside the engine's own checks: machine clients' scopes, introspection. */
import type { Store } from '../../store/contract.js';
import type { ProviderSet } from '../providers.js';
import { checkMachineScopes } from '../check-machine-scopes.js';
import { authenticatedCaller, introspection } from '../introspect.js';
import { ProtocolError } from '../../errors.js';
import { applicationOf, type Step } from './state.js';

/** client_credentials asks only for the application's own api_scopes (check-machine-scopes.ts). */
export const checkMachineClientScopes: Step = async function checkMachineClientScopes(ctx, next) {
  await checkMachineScopes(ctx, applicationOf(ctx).app);
  return next();
};

/** Introspection is ours (introspect.ts): the caller authenticates with its secret, then the token is looked up. */
export function introspectToken(providers: ProviderSet, store: Store): Step {
  const introspect = introspection(providers, store);
  return async function introspectToken(ctx) {
    const caller = authenticatedCaller(providers, ctx.state.credentials ?? {});
    if (!caller)
      throw new ProtocolError(401, 'invalid_client', 'client authentication failed', { 'WWW-Authenticate': 'Basic realm="introspection"' });
    ctx.state.application = caller;
    await introspect(ctx, caller);
  };
}
