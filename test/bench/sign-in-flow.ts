/**
 * One whole password sign-in over HTTP, as a browser does it with both fields of the first page filled in (a
 * password manager, or a person who types both): authorize → the sign-in page → its post → the resume → the
 * callback's code → the code exchange. Cookies are kept per sign-in.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BenchFixture } from './fixture.js';
import { basic, call, expectStatus, form, FORM, type Answer } from './loops.js';

const VERIFIER = randomBytes(32).toString('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

class Jar {
  private cookies = new Map<string, string>();
  take(answer: Answer) {
    for (const line of [answer.headers['set-cookie'] ?? []].flat()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return answer;
  }
  header() {
    return [...this.cookies]
      .filter(([, value]) => value)
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const actionOf = (html: string) => /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '';

export async function passwordSignIn(f: BenchFixture, email: string, password: string): Promise<void> {
  const jar = new Jar();
  const get = async (url: string) => jar.take(await call(url, { headers: { Cookie: jar.header() } }));
  const post = async (url: string, fields: Record<string, string>) =>
    jar.take(await call(url, { method: 'POST', headers: { Cookie: jar.header(), 'Content-Type': FORM }, body: form(fields) }));
  const query = new URLSearchParams({
    client_id: f.client.id,
    redirect_uri: f.client.redirectUri,
    response_type: 'code',
    scope: 'openid profile email',
    state: randomBytes(8).toString('hex'),
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  });
  const start = expectStatus(await get(`${f.url}${f.paths.authorize}?${query}`), 303, 'authorize');
  const signInPage = expectStatus(await get(new URL(String(start.headers.location), f.url).href), 200, 'sign-in page');
  const signedIn = expectStatus(
    await post(new URL(actionOf(signInPage.body), f.url).href, { csrf: csrfOf(signInPage.body), email, password }),
    303,
    'sign-in post',
  );
  const resumed = expectStatus(await get(new URL(String(signedIn.headers.location), f.url).href), 303, 'resume');
  const code = new URL(String(resumed.headers.location)).searchParams.get('code');
  if (!code) throw new Error(`no code: ${resumed.headers.location}`);
  expectStatus(
    await call(f.url + f.paths.token, {
      method: 'POST',
      headers: { 'Content-Type': FORM, Authorization: basic(f.client.id, f.client.secret) },
      body: form({ grant_type: 'authorization_code', code, redirect_uri: f.client.redirectUri, code_verifier: VERIFIER }),
    }),
    200,
    'code exchange',
  );
}
