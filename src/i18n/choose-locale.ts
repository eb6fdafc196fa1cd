/**
 * Which language a page is in, first that names an offered locale:
 *   1. the person's own choice on the language switcher (the `idp_locale` cookie);
 *   2. the application's `ui_locales` (the sign-in request's, kept by the interaction);
 *   3. the account's stored locale (`attributes.locale`, then `preferred_language`), where the page knows the account;
 *   4. the browser's Accept-Language;
 *   5. `i18n.default_locale`.
 * Tags match exactly, else by language (`de-AT` → `de`, `pt` → `pt-BR`, `zh-Hans-CN` → `zh-CN`).
 */
import type { Context } from 'koa';
import type { Locale } from './catalogues.js';
import { Messages } from './messages.js';

export const LOCALE_COOKIE = 'idp_locale';

/** What a page's handlers know of the reader, left on ctx.state.language. */
export interface LanguageHints {
  /** The sign-in request's ui_locales: space-separated tags, most preferred first. */
  uiLocales?: string;
  /** The account's stored locale. */
  account?: string;
  /** Where the switcher returns to when the page itself was the answer to a POST. */
  back?: string;
}

const base = (tag: string) => tag.split('-')[0]!.toLowerCase();

/** The offered locale a BCP 47 tag (or a POSIX one, `pt_BR`) names, if any. */
export function matchLocale(tag: string | undefined, offered: readonly Locale[]): Locale | undefined {
  if (!tag) return undefined;
  const wanted = tag.trim().replace(/_/g, '-').toLowerCase();
  if (!wanted) return undefined;
  return offered.find((locale) => locale.toLowerCase() === wanted) ?? offered.find((locale) => base(locale) === base(wanted));
}

/** The first of space-separated tags that names an offered locale. */
const firstOf = (tags: string | undefined, offered: readonly Locale[]) =>
  (tags ?? '')
    .split(/\s+/)
    .map((tag) => matchLocale(tag, offered))
    .find(Boolean);

/** The messages the service runs with (`localize` in src/pages/language.ts leaves them on ctx.state); else the shipped ones. */
let fallback: Messages | undefined;
export function messagesOf(ctx: Context): Messages {
  return (ctx.state.messages as Messages | undefined) ?? (fallback ??= new Messages());
}

export function chooseLocale(ctx: Context): Locale {
  const messages = messagesOf(ctx);
  const offered = messages.offered;
  const hints = (ctx.state.language ?? {}) as LanguageHints;
  const engineParams = (ctx as Context & { oidc?: { params?: { ui_locales?: unknown } } }).oidc?.params;
  const uiLocales = hints.uiLocales ?? (typeof engineParams?.ui_locales === 'string' ? engineParams.ui_locales : undefined);
  return (
    matchLocale(ctx.cookies.get(LOCALE_COOKIE, { signed: false }), offered) ??
    firstOf(uiLocales, offered) ??
    matchLocale(hints.account, offered) ??
    acceptLanguage(ctx, offered) ??
    messages.defaultLocale
  );
}

/** Accept-Language, most wanted first (Koa's negotiator orders the ranges by q-value); each matched as matchLocale does. */
function acceptLanguage(ctx: Context, offered: readonly Locale[]): Locale | undefined {
  for (const range of ctx.acceptsLanguages().slice(0, 20)) {
    const locale = range === '*' ? undefined : matchLocale(range, offered);
    if (locale) return locale;
  }
  return undefined;
}
