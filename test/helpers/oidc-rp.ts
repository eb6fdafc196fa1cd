/**
 * The relying party side: a tiny callback server on 127.0.0.1 and openid-client v6 configured per app.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { TestApp } from './oidc-server.js';

export interface CallbackServer {
  url: string;
  close(): Promise<void>;
}

/** Answers every request with a small page; the browser's URL then holds the callback query. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>callback</title><p>back at the app</p>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function discover(app: TestApp, secret = app.client_secret): Promise<client.Configuration> {
  return client.discovery(new URL(app.issuer), app.client_id, secret, client.ClientSecretPost(secret), {
    execute: [client.allowInsecureRequests],
  });
}

export interface AuthorizationRequest {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

export async function authorizationRequest(
  config: client.Configuration,
  app: TestApp,
  scope = 'openid profile email',
): Promise<AuthorizationRequest> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: app.redirect_uri,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, verifier, state, nonce };
}

export const exchangeCode = (config: client.Configuration, callback: URL, request: AuthorizationRequest) =>
  client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: request.verifier,
    expectedState: request.state,
    expectedNonce: request.nonce,
  });

/** A raw form POST to the shared token endpoint, for the error cases openid-client would refuse to send. */
export async function postToken(baseUrl: string, form: Record<string, string>): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${baseUrl}/application/o/token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}
