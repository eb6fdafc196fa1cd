/**
 * Steps of device sign-in (RFC 8628) beside the engine's own: the device's pace at the token endpoint and the
 * interval it is told, and for the pages at {base_url}/device/ which application's engine answers and how many
 * codes one address may type.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../../store/contract.js';
import type { RateLimits } from '../../domain/rate-limits.js';
import { DEVICE_CODE_GRANT, usesDeviceFlow } from '../../domain/applications.js';
import { PageError, ProtocolError } from '../../errors.js';
import { waitValues } from '../../pages/wait-text.js';
import { text } from '../../i18n/messages.js';
import { formOf } from '../read-client.js';
import type { AppProvider, ProviderSet } from '../providers.js';
import { unitOfWorkOf } from '../engine-storage/unit-of-work.js';
import { DEVICE_PAGE_PATH } from '../device-paths.js';
import type { EndpointContext, Step } from './state.js';

/** The device authorization's answer says how often to poll (RFC 8628 §3.2; the engine leaves it out). */
export function tellPollInterval(seconds: number): Step {
  return async function tellPollInterval(ctx, next) {
    await next();
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status === 200 && body && typeof body.device_code === 'string') body.interval = seconds;
  };
}

/**
 * RFC 8628 §3.5 slow_down: a second poll for one device code within the interval is refused before the engine
 * reads anything. Counted under a hash of the code: the device code is a bearer secret, and Redis need not hold it.
 */
export function slowDownPolling(limits: RateLimits, intervalSeconds: number): Step {
  return async function slowDownPolling(ctx, next) {
    const form = await formOf(ctx);
    if (form.grant_type !== DEVICE_CODE_GRANT || typeof form.device_code !== 'string') return next();
    const key = createHash('sha256').update(form.device_code).digest('base64url');
    if (!(await limits.attempt([['device_polls', key]])).allowed)
      throw new ProtocolError(400, 'slow_down', `poll at most every ${intervalSeconds} seconds, and from now on 5 seconds less often`);
    return next();
  };
}

/**
 * Every user code typed at the device page counts against the typing address before it is looked up, right or
 * wrong (a right one must not reset the count: a person with one device of their own could then guess on for
 * ever). Over the limit the code is refused unchecked. 8 letters of 20 are 2.56e10 codes: at the default 20 per
 * 15 minutes, with a hundred codes live at once, one address needs centuries to hit one by chance.
 */
export function limitUserCodes(limits: RateLimits): Step {
  return async function limitUserCodes(ctx, next) {
    if (ctx.method !== 'POST') return next();
    const typed = (await formOf(ctx)).user_code;
    if (typeof typed !== 'string' || !typed) return next(); // nothing is looked up: the engine asks for a code
    const outcome = await limits.attempt([['user_codes', `ip:${ctx.ip}`]]);
    if (outcome.allowed) return next();
    throw new PageError(429, {
      title: 'error.device.too_many.title',
      heading: 'error.device.too_many.heading',
      message: text('error.device.too_many.message', waitValues(outcome.retryAfterSeconds)),
      link: { href: DEVICE_PAGE_PATH, label: 'error.device.type_code' },
    });
  };
}

/** The engine's own normalisation of a typed code (its helpers/user_codes.js): a–z upper-cased, all but letters and digits dropped. */
export const normalizeUserCode = (typed: string) => typed.replace(/[a-z]/g, (letter) => letter.toUpperCase()).replace(/\W/g, '');

/** The applications that sign in devices, in configuration order (the providers are swapped on a key rotation: read each time). */
export const deviceApplications = (providers: ProviderSet): AppProvider[] =>
  [...providers.bySlug.values()].filter((entry) => usesDeviceFlow(entry.app));

const RESUME = /^\/device\/([A-Za-z0-9_-]{1,64})\/?$/;

/**
 * The application of a device page: the one whose device shows the typed code (a posted code), or whose sign-in
 * is resumed (/device/{uid}, by the engine's interaction, which the engine then reads from here); else the first
 * that signs in devices, whose engine shows the entry page or says the code is unknown. Every application's
 * engine serves the same pages, on the same browser session.
 */
export function findDeviceApplication(providers: ProviderSet, store: Store): Step {
  async function named(ctx: EndpointContext): Promise<AppProvider | undefined> {
    const uid = RESUME.exec(ctx.path)?.[1];
    if (uid !== undefined) {
      const row = await store.oidcPayloads.find('Interaction', uid, new Date());
      if (!row) return undefined;
      unitOfWorkOf(store, ctx).handOver(row);
      const clientId = (row.payload.params as { client_id?: unknown } | undefined)?.client_id;
      return typeof clientId === 'string' ? providers.byClientId.get(clientId) : undefined;
    }
    if (ctx.method !== 'POST') return undefined;
    const typed = (await formOf(ctx)).user_code;
    if (typeof typed !== 'string') return undefined;
    const row = await store.oidcPayloads.findByUserCode('DeviceCode', normalizeUserCode(typed), new Date());
    return row?.client_id ? providers.byClientId.get(row.client_id) : undefined;
  }
  return async function findDeviceApplication(ctx, next) {
    const found = await named(ctx);
    ctx.state.application = found && usesDeviceFlow(found.app) ? found : deviceApplications(providers)[0];
    return next();
  };
}
