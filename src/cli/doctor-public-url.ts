/**
 * `idp doctor`'s public-URL check: issuer.base_url must reach this service, or every redirect of the pages (the
 * account page, sign-in) sends people where nothing answers. The listener (server.host:port, asked from this
 * machine) and the public URL are asked for /-/health/live/; the same X-Idp-Instance in both answers means the
 * public URL reaches the very process listening here.
 */
import type { Settings } from '../settings/schema.js';
import { INSTANCE_HEADER } from '../observability/health.js';
import { listenerUrl } from './context.js';
import { fail, NETWORK_TIMEOUT_MS, ok, warn, type Finding } from './findings.js';

const CHECK = 'public URL';

interface Answer {
  /** The instance that answered; undefined when something answered that is not this service. */
  instance?: string;
  status?: number;
  /** Why nothing answered. */
  error?: string;
}

async function ask(origin: string): Promise<Answer> {
  try {
    const response = await fetch(`${origin}/-/health/live/`, { signal: AbortSignal.timeout(NETWORK_TIMEOUT_MS) });
    await response.body?.cancel();
    return { status: response.status, instance: response.headers.get(INSTANCE_HEADER) ?? undefined };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const timedOut = (error as Error).name === 'TimeoutError';
    return { error: timedOut ? `no answer within ${NETWORK_TIMEOUT_MS / 1000} s` : (cause ?? (error as Error).message) };
  }
}

export async function checkPublicUrl(settings: Settings): Promise<Finding> {
  const base = settings.issuer.base_url;
  const listener = settings.server.port ? listenerUrl(settings) : undefined;
  const [here, there] = await Promise.all([listener ? ask(listener) : Promise.resolve<Answer>({ error: 'port 0' }), ask(base)]);
  const elsewhere = `answers (${there.status}) but is not this service (no ${INSTANCE_HEADER} on /-/health/live/): issuer.base_url (BASE_URL) points at another server`;
  if (here.instance) {
    if (there.instance === here.instance) return ok(CHECK, `${base} reaches the server listening at ${listener}`);
    if (there.error)
      return fail(
        CHECK,
        `nothing answers at ${base} (${there.error}), but the service listens at ${listener}: set BASE_URL to the URL that reaches it` +
          (process.env.NODE_ENV === 'production' ? '' : ', or leave it unset (outside production it follows the port)'),
      );
    if (!there.instance) return fail(CHECK, `${base} ${elsewhere}`);
    return warn(
      CHECK,
      `${base} reaches another instance of the service than the one listening at ${listener}: fine behind a load balancer over replicas; otherwise BASE_URL points at another server`,
    );
  }
  if (there.instance) return ok(CHECK, `${base} reaches a running instance of the service`);
  if (there.status !== undefined) return fail(CHECK, `${base} ${elsewhere}`);
  const where = listener ? `${base} or ${listener}` : base;
  return warn(CHECK, `not checked: no service answers at ${where}; run doctor again while \`idp serve\` runs`);
}
