/**
 * Pages in people's language (docs/i18n.md), in chromium: the sign-in page in every language (a screenshot of each
 * under var/test/screenshots/, Arabic laid out right to left), never a raw key; the language chosen by
 * ui_locales, Accept-Language and the switcher, in that order of strength; an operator's override; discovery's
 * ui_locales_supported; axe-core on the sign-in and registration pages in Arabic, Japanese and German.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { scrollsSideways, seriousViolations } from '../helpers/accessibility.js';
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { authorizationRequest, discover } from '../helpers/oidc-rp.js';
import { LOCALES, readCatalogue } from '../../src/i18n/catalogues.js';
import { Messages } from '../../src/i18n/messages.js';

const SCREENSHOTS = path.resolve('var/test/screenshots');
const english = readCatalogue('en');
const AREAS = [...new Set(Object.keys(english).map((key) => key.split('.')[0]!))];
/** Text that looks like one of our keys (`sign_in.email.heading`): what a page shows when a message is missing. */
const RAW_KEY = new RegExp(`\\b(?:${AREAS.join('|')})\\.[a-z0-9_]+(?:\\.[a-z0-9_]+)*\\b`);
const OVERRIDE = 'Anmelden bei der Firma';

describe.each(engines)('pages in people’s language (%s)', (engine) => {
  const web = useBrowser();
  let idp: OidcTestServer;
  const shipped = new Messages();
  const headingIn = (locale: (typeof LOCALES)[number]) => shipped.translator(locale).t('sign_in.email.heading');

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    idp = await startOidcServer(engine, web.rp.url, [
      { slug: 'wiki', name: 'Wiki', registration: { enabled: true, email_domains: [], groups: [] } },
    ]);
  });
  afterAll(() => idp?.close());

  /** Opens the wiki's sign-in page, with `ui_locales` when given. */
  async function signInPage(page: Page, uiLocales?: string) {
    const config = await discover(idp.apps.wiki!);
    const request = await authorizationRequest(config, idp.apps.wiki!);
    if (uiLocales) request.url.searchParams.set('ui_locales', uiLocales);
    await page.goto(request.url.href);
  }

  test.each(LOCALES)('the sign-in page in %s: lang and dir, translated, no raw key', async (locale) => {
    await signInPage(web.page, locale);
    const html = web.page.locator('html');
    await expect(html.getAttribute('lang')).resolves.toBe(locale);
    await expect(html.getAttribute('dir')).resolves.toBe(locale === 'ar' ? 'rtl' : 'ltr');
    await expect(web.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(headingIn(locale));
    const shown = await web.page.locator('main').innerText();
    expect(shown).not.toMatch(RAW_KEY);
    if (locale !== 'en') expect(shown).not.toContain(english['sign_in.email.no_password_hint']);
    if (locale === 'ar') {
      // Mirrored: the heading's words start at the card's right edge, and the inputs' text runs right to left.
      const [left, right] = await web.page.evaluate(() => {
        const card = document.querySelector('main')!.getBoundingClientRect();
        const range = document.createRange();
        range.selectNodeContents(document.querySelector('h1')!);
        const words = range.getBoundingClientRect();
        return [words.left - card.left, card.right - words.right];
      });
      expect(left).toBeGreaterThan(right);
      await expect(web.page.locator('#email').evaluate((input) => getComputedStyle(input).direction)).resolves.toBe('rtl');
    }
    await web.page.screenshot({ path: path.join(SCREENSHOTS, `sign-in-${locale}.png`), fullPage: true });
  });

  test('Accept-Language picks the language; ui_locales is stronger; the switcher is stronger still and stays', async () => {
    const context = await web.browser.newContext({ locale: 'ja-JP' });
    const page = await context.newPage();
    try {
      await signInPage(page);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(headingIn('ja'));
      await signInPage(page, 'fr-CA es');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(headingIn('fr'));

      await page.getByRole('link', { name: 'Deutsch' }).click();
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(headingIn('de'));
      await expect(page.locator('nav.languages a[aria-current]').textContent()).resolves.toBe('Deutsch');
      await signInPage(page, 'fr');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(headingIn('de'));
    } finally {
      await context.close();
    }
  });

  test('the switcher goes back only to a path of this service', async () => {
    const answer = await fetch(`${idp.url}/-/language/es?back=${encodeURIComponent('//evil.example/')}`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/welcome/');
    expect(answer.headers.get('set-cookie')).toMatch(/^idp_locale=es;/);
  });

  test('discovery names the offered languages', async () => {
    const answer = await fetch(`${idp.apps.wiki!.issuer}.well-known/openid-configuration`);
    expect((await answer.json()).ui_locales_supported).toEqual([...LOCALES]);
  });

  test('an operator’s override replaces a message in its locale only; a switcher offers only i18n.locales', async () => {
    const own = await startOidcServer(engine, web.rp.url, [{ slug: 'wiki', name: 'Wiki' }], {
      overrides: { i18n: { default_locale: 'de', locales: ['de', 'en'], overrides: { de: { 'sign_in.email.heading': OVERRIDE } } } },
    });
    try {
      const config = await discover(own.apps.wiki!);
      const request = await authorizationRequest(config, own.apps.wiki!);
      request.url.searchParams.set('ui_locales', 'de');
      await web.page.goto(request.url.href);
      await expect(web.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(OVERRIDE);
      await expect(web.page.locator('nav.languages a').allTextContents()).resolves.toEqual(['Deutsch', 'English']);
      await web.page.getByRole('link', { name: 'English' }).click();
      await expect(web.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(headingIn('en'));
    } finally {
      await own.close();
    }
  });

  test('axe-core finds no serious or critical problem on the sign-in and registration pages, right to left or not', async () => {
    // The pages' CSP allows no injected script: axe runs in a context that bypasses it.
    const context = await web.browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      for (const locale of ['ar', 'ja', 'de'] as const) {
        await signInPage(page, locale);
        const signIn = page.url();
        for (const [name, url] of [
          ['sign-in', signIn],
          ['register', `${signIn}register`],
        ] as const) {
          await page.goto(url);
          const violations = await seriousViolations(page);
          expect({ locale, name, violations }).toEqual({ locale, name, violations: [] });
          expect({ locale, name, sideways: await scrollsSideways(page) }).toEqual({ locale, name, sideways: false });
        }
      }
    } finally {
      await context.close();
    }
  });
});
