/** One authorization-code round trip through the browser, as a relying party would run it. */
import type { Page } from 'playwright-core';
import type * as client from 'openid-client';
import { signIn, waitForCallback } from './browser.js';
import { authorizationRequest, discover, exchangeCode, type AuthorizationRequest } from './oidc-rp.js';
import type { TestApp } from './oidc-server.js';

export interface Flow {
  config: client.Configuration;
  request: AuthorizationRequest;
  callback: URL;
  /** Whether the browser saw a sign-in page on the way (false for SSO). */
  sawLoginPage: boolean;
}

/** Starts the flow; signs in when a login page appears and credentials are given; returns at the callback. */
export async function runFlow(page: Page, app: TestApp, options: { email?: string; password?: string; scope?: string }): Promise<Flow> {
  const config = await discover(app);
  const request = await authorizationRequest(config, app, options.scope);
  let sawLoginPage = false;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url().includes('/if/flow/')) sawLoginPage = true;
  });
  await page.goto(request.url.href);
  if (page.url().includes('/if/flow/') && options.email) await signIn(page, options.email, options.password!);
  const callback = await waitForCallback(page, app.redirect_uri);
  return { config, request, callback, sawLoginPage };
}

export const tokensOf = (flow: Flow) => exchangeCode(flow.config, flow.callback, flow.request);
