/**
 * Finds the application and the engine's interaction for /if/flow/{slug}/{uid}/. The interaction comes
 * from the browser's interaction cookie; it must be the one named in the URL.
 */
import type { LanguageHints } from '../i18n/choose-locale.js';
import type { Next } from 'koa';
import { PageError, unavailableIn } from '../errors.js';
import { text } from '../i18n/messages.js';
import { applicationHome } from '../domain/applications.js';
import type { CsrfTokens } from '../http/forms.js';
import type { ApplicationSettings } from '../settings/schema.js';
import { interactionPath, type InteractionContext, type OfferedSource, type SignInApps } from './state.js';

/**
 * No interaction cookie, another interaction's cookie, or an interaction the engine has forgotten. When the
 * application is known, the page links back to it (the origin of its first web redirect URI) to start again.
 */
export const expired = (cause?: unknown, app?: { name: string; redirect_uris: readonly string[] }) => {
  const home = app && applicationHome(app.redirect_uris);
  return new PageError(
    400,
    {
      title: 'sign_in.expired.title',
      heading: 'sign_in.expired.heading',
      message: 'sign_in.expired.message',
      ...(home ? { link: { href: home, label: text('sign_in.expired.back', { app: app.name }) } } : {}),
    },
    cause,
  );
};

/** `offered`: the upstream identity providers an application's sign-in page offers (none by default). */
export function loadInteraction(apps: SignInApps, csrf: CsrfTokens, offered: (app: ApplicationSettings) => OfferedSource[] = () => []) {
  return async function loadInteraction(ctx: InteractionContext & { params: Record<string, string> }, next: Next) {
    const entry = apps.bySlug.get(ctx.params.slug ?? '');
    if (!entry) throw expired();
    let details;
    try {
      details = await entry.provider.interactionDetails(ctx.req, ctx.res);
    } catch (error) {
      throw unavailableIn(error) ?? expired(error, entry.app); // a database outage is not an expired sign-in
    }
    if (details.uid !== ctx.params.uid || details.params.client_id !== entry.app.client_id) throw expired(undefined, entry.app);
    // The pages' language may come from the application's ui_locales; the switcher returns to the page's start.
    const base = interactionPath(entry.app.slug, details.uid);
    const uiLocales = details.params.ui_locales;
    (ctx.state as { language?: LanguageHints }).language = { uiLocales: typeof uiLocales === 'string' ? uiLocales : undefined, back: base };
    ctx.state.interaction = {
      entry,
      details,
      base,
      csrf: csrf.tokenFor(details.uid),
      sources: offered(entry.app),
    };
    return next();
  };
}
