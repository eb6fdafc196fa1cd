/** Browser steps shared by the credential tests: start an authorization request, fill the pages, reach the callback. */
import type { Page } from 'playwright-core';
import type * as client from 'openid-client';
import { authorizationRequest, discover, exchangeCode, type AuthorizationRequest } from '../helpers/oidc-rp.js';
import { waitForCallback } from '../helpers/browser.js';
import type { TestApp } from '../helpers/oidc-server.js';

export interface StartedFlow {
  app: TestApp;
  config: client.Configuration;
  request: AuthorizationRequest;
  /** Waits for the callback and redeems the code, as the application would. */
  finish(): ReturnType<typeof exchangeCode>;
}

export async function startFlow(page: Page, app: TestApp): Promise<StartedFlow> {
  const config = await discover(app);
  const request = await authorizationRequest(config, app);
  await page.goto(request.url.href);
  return {
    app,
    config,
    request,
    async finish() {
      const callback = await waitForCallback(page, app.redirect_uri);
      return exchangeCode(config, callback, request);
    },
  };
}

export async function enterEmail(page: Page, email: string) {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
}

export async function enterPassword(page: Page, password: string) {
  // The password page's own form: the first page has a password field too (filled in, it signs in at once).
  const form = page.locator('form[action$="/password"]');
  await form.getByLabel('Password', { exact: true }).fill(password);
  await form.getByRole('button', { name: 'Sign in' }).click();
}

/** Both fields of the first page, as a password manager fills them: the password is checked at once. */
export async function enterEmailAndPassword(page: Page, email: string, password: string) {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.locator('form[action$="/email"]').getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Continue' }).click();
}

export async function enterCode(page: Page, code: string) {
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: /Verify|Confirm/ }).click();
}

export const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
export const alertText = (page: Page) => page.getByRole('alert').textContent();

/** An authorization with prompt=none in `page`: where the browser lands at the callback (a code, or login_required). */
export async function silentAuthorization(page: Page, app: TestApp): Promise<URL> {
  const request = await authorizationRequest(await discover(app), app);
  request.url.searchParams.set('prompt', 'none');
  await page.goto(request.url.href);
  return waitForCallback(page, app.redirect_uri);
}
