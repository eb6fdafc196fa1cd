/** Debian's chromium driven by playwright-core through the real sign-in pages. */
import { chromium, type Browser, type Page } from 'playwright-core';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
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
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
