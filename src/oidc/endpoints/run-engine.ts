/**
 * The last step of every endpoint: the application's engine answers, mounted where its URLs must point — the
 * shared prefix for the JSON endpoints (DPoP `htu` and client-assertion audiences name the shared URL), the
 * application's own prefix for its pages (the authorization's resume URL finds this provider again); the origin for
 * device sign-in.
 */
import { runProvider } from '../mount-provider.js';
import { SHARED_PREFIX } from '../providers.js';
import { applicationOf, type Step } from './state.js';

const mountPaths: Record<'shared' | 'application' | 'origin', (slug: string) => string> = {
  shared: () => SHARED_PREFIX,
  application: (slug) => `${SHARED_PREFIX}/${slug}`,
  // Device sign-in: its routes are whole paths (device-paths.ts), so the URLs the engine builds are the public ones.
  origin: () => '',
};

/** `innerPath` omitted: the per-application path the dispatcher found (`ctx.state.enginePath`). */
export function runEngine(innerPath?: string, mount: keyof typeof mountPaths = 'shared'): Step {
  return function runEngine(ctx, next) {
    const { app, provider } = applicationOf(ctx);
    const path = innerPath ?? ctx.state.enginePath!;
    return runProvider(provider, ctx, next, mountPaths[mount](app.slug), path);
  };
}
