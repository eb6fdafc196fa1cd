/**
 * Which language a page is in (src/i18n/choose-locale.ts), on Koa's own request contexts: the switcher's cookie,
 * then ui_locales, then the account's locale, then Accept-Language by its q-values, then the default.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import { chooseLocale, matchLocale } from '../../src/i18n/choose-locale.js';
import { Messages } from '../../src/i18n/messages.js';
import { LOCALES } from '../../src/i18n/catalogues.js';

const app = new Koa();
const messages = new Messages({ default_locale: 'en', locales: [...LOCALES], overrides: {} });

function localeFor(headers: Record<string, string>, language?: { uiLocales?: string; account?: string }, offered = messages) {
  const request = { headers, socket: {} } as unknown as IncomingMessage;
  const ctx = app.createContext(request, {} as ServerResponse);
  ctx.state.messages = offered;
  if (language) ctx.state.language = language;
  return chooseLocale(ctx);
}

describe('choosing the page language', () => {
  test.each([
    ['the highest q-value wins, not the first range', 'fr;q=0.5, de-AT;q=0.9', 'de'],
    ['an unweighted range counts as q=1', 'ja;q=0.8, es', 'es'],
    ['q=0 means "not this one"', 'de;q=0, fr;q=0.3', 'fr'],
    ['a range no catalogue has gives way to the next', 'nl, sv;q=0.9, pt;q=0.5', 'pt-BR'],
    ['a script subtag still finds its language', 'zh-Hans-CN', 'zh-CN'],
    ['a wildcard alone is the default', '*', 'en'],
    ['nothing offered matches: the default', 'nl, sv', 'en'],
  ])('Accept-Language: %s', (_, header, expected) => {
    expect(localeFor({ 'accept-language': header })).toBe(expected);
  });

  test('no header: the default locale the operator set', () => {
    const german = new Messages({ default_locale: 'de', locales: [...LOCALES], overrides: {} });
    expect(localeFor({}, undefined, german)).toBe('de');
  });

  test('the cookie beats ui_locales, which beats the account, which beats Accept-Language', () => {
    const browser = { 'accept-language': 'fr' };
    expect(localeFor(browser, { account: 'es' })).toBe('es');
    expect(localeFor(browser, { account: 'es', uiLocales: 'xx ja' })).toBe('ja');
    expect(localeFor({ ...browser, cookie: 'idp_locale=ar' }, { account: 'es', uiLocales: 'ja' })).toBe('ar');
  });

  test('only offered locales are chosen', () => {
    const two = new Messages({ default_locale: 'en', locales: ['en', 'fr'], overrides: {} });
    expect(localeFor({ 'accept-language': 'de, fr;q=0.5' }, undefined, two)).toBe('fr');
    expect(matchLocale('pt_BR', two.offered)).toBeUndefined();
    expect(matchLocale('pt_BR', messages.offered)).toBe('pt-BR');
  });
});
