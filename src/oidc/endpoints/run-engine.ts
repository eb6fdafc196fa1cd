/**
 * The last step of every endpoint: the application's engine answers, mounted where its URLs must point — the
 * shared prefix for the JSON endpoints (DPoP `htu` and client-assertion audiences name the shared URL), the
 * application's own prefix for its pages (the authorization's resume URL finds this provider again).
 */
import { runProvider } from '../mount-provider.js';
import { SHARED_PREFIX } from '../providers.js';
import { applicationOf, type Step } from './state.js';

/** `innerPath` omitted: the per-application path the dispatcher found (`ctx.state.enginePath`). */
export function runEngine(innerPath?: string, mount: 'shared' | 'application' = 'shared'): Step {
  return function runEngine(ctx, next) {
    const { app, provider } = applicationOf(ctx);
    const path = innerPath ?? ctx.state.enginePath!;
    return runProvider(provider, ctx, next, mount === 'shared' ? SHARED_PREFIX : `${SHARED_PREFIX}/${app.slug}`, path);
  };
}
