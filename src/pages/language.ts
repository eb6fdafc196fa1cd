/**
 * The pages' language: `localize` leaves the service's messages on every request's state; `/-/language/{locale}`
 * is the switcher's target (a plain link on every page, so it works without scripts): it keeps the choice in a
 * cookie for a year and goes back to the page, a path on this origin only.
 */
import type { Context, Middleware } from 'koa';
import { LANGUAGE_NAMES, RIGHT_TO_LEFT } from '../i18n/catalogues.js';
import { chooseLocale, LOCALE_COOKIE, matchLocale, messagesOf, type LanguageHints } from '../i18n/choose-locale.js';
import type { Messages, Translator } from '../i18n/messages.js';

const SWITCH = /^\/-\/language\/([A-Za-z-]{2,10})$/;
const YEAR_MS = 365 * 86400 * 1000;

/** A same-origin path, or the front page: `//host` and `/\host` are other origins to a browser. */
const safeBack = (back: unknown) => (typeof back === 'string' && /^\/(?![/\\])/.test(back) && back.length <= 2000 ? back : '/welcome/');

export function localize(messages: Messages): Middleware {
  return async (ctx, next) => {
    ctx.state.messages = messages;
    const wanted = ctx.method === 'GET' ? SWITCH.exec(ctx.path) : null;
    if (!wanted) return next();
    const locale = matchLocale(wanted[1], messages.offered);
    if (locale) {
      ctx.cookies.set(LOCALE_COOKIE, locale, { signed: false, httpOnly: true, sameSite: 'lax', maxAge: YEAR_MS, overwrite: true });
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(safeBack(ctx.query.back));
  };
}

export interface PageLanguage extends Translator {
  dir: 'ltr' | 'rtl';
  /** The switcher: each offered language, with the link that picks it. */
  languages: Array<{ locale: string; name: string; dir: 'ltr' | 'rtl'; href: string; current: boolean }>;
}

/**
 * Where the switcher brings the reader back: this page when it is a GET, else the page its handler names. An error
 * page's query is left out: it may be what was wrong (an unregistered redirect_uri), never echoed back.
 */
function backOf(ctx: Context): string {
  if (ctx.method === 'GET') return ctx.status >= 400 ? ctx.path : ctx.originalUrl;
  return ((ctx.state.language ?? {}) as LanguageHints).back ?? '/welcome/';
}

export function pageLanguage(ctx: Context): PageLanguage {
  const messages = messagesOf(ctx);
  const locale = chooseLocale(ctx);
  const back = encodeURIComponent(backOf(ctx));
  return {
    ...messages.translator(locale),
    dir: RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr',
    languages:
      messages.offered.length > 1
        ? messages.offered.map((each) => ({
            locale: each,
            name: LANGUAGE_NAMES[each],
            dir: RIGHT_TO_LEFT.has(each) ? 'rtl' : 'ltr', // each name in its own direction ("Português (Brasil)" on an Arabic page)
            href: `/-/language/${each}?back=${back}`,
            current: each === locale,
          }))
        : [],
  };
}
