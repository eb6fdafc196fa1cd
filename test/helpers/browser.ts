/** Debian's chromium driven by playwright-core through the real sign-in pages. */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startCallbackServer, type CallbackServer } from './oidc-rp.js';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Opens `url` and waits until the browser is back at the relying party's callback; returns that URL. */
export async function waitForCallback(page: Page, callbackUrl: string): Promise<URL> {
  await page.waitForURL((url) => url.href.startsWith(callbackUrl), { timeout: 15_000 });
  return new URL(page.url());
}

/** Fills the identifier-first pages: Email, then Password. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  // The password page's own form: the first page has a password field too (filled in, it signs in at once).
  const form = page.locator('form[action$="/password"]');
  await form.getByLabel('Password', { exact: true }).fill(password);
  await form.getByRole('button', { name: 'Sign in' }).click();
}

/** What a browser test works with: one chromium and one relying-party callback server per file, and the page of a test. */
export interface BrowserFixture {
  browser: Browser;
  rp: CallbackServer;
  context: BrowserContext;
  page: Page;
}

const VIEWPORT = { width: 1280, height: 720 }; // playwright's default

/**
 * Registers the hooks every browser test file shares and returns the fixture they fill. Call it at the top of a
 * describe block, before the hooks that start the identity service (they read `rp.url`); read its fields in tests.
 *
 * Tests share one page, its cookies cleared before each (a person with a fresh browser): a new context starts a new
 * renderer, and its first steps cost chromium about a second of CPU, more than most tests spend on their own. A test
 * that closes the context gets a new one. `freshPerTest` gives each test its own context, for files that change
 * what clearing cookies does not undo (virtual authenticators, listeners on the page).
 */
export function useBrowser(options: { freshPerTest?: boolean } = {}): BrowserFixture {
  const fixture = {} as BrowserFixture;
  const open = async () => {
    fixture.context = await fixture.browser.newContext();
    fixture.page = await fixture.context.newPage();
  };
  beforeAll(async () => {
    fixture.browser = await launchBrowser();
    fixture.rp = await startCallbackServer();
  });
  afterAll(async () => {
    await fixture.rp?.close();
    await fixture.browser?.close();
  });
  beforeEach(async () => {
    if (options.freshPerTest || !fixture.page || fixture.page.isClosed()) return open();
    await fixture.context.clearCookies();
    await fixture.page.goto('about:blank');
    const size = fixture.page.viewportSize();
    if (size?.width !== VIEWPORT.width || size?.height !== VIEWPORT.height) await fixture.page.setViewportSize(VIEWPORT);
  });
  if (options.freshPerTest) afterEach(async () => fixture.context?.close());
  return fixture;
}
