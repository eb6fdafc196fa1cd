/**
 * The bench's starting state made as people make it: over HTTP. Each loop is one browser that signs in
 * (authorize → the server's sign-in interaction → resume → code exchange), so its session, grant and tokens are
 * the ones a real sign-in leaves behind — on both servers alike, only the interaction differs (the service's
 * password page, the bare engine's login-at-once). Then single sign-on with that browser mints the loop's second
 * pair of tokens and the refresh tokens of the ES256 and EdDSA applications.
 */
import { createHash, randomBytes } from 'node:crypto';
import { algClientId, LOOPS, OTHER_ALGS, SCOPE, type BenchClient, type BenchFixture } from './fixture.js';
import { basic, call, expectStatus, form, FORM, type Answer } from './loops.js';

const VERIFIER = randomBytes(32).toString('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

/** A browser's cookies (name → value); an emptied cookie is a deleted one. */
export class Jar {
  private cookies = new Map<string, string>();
  take(answer: Answer): Answer {
    for (const line of [answer.headers['set-cookie'] ?? []].flat()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return answer;
  }
  header(): string {
    return [...this.cookies]
      .filter(([, value]) => value)
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }
  get(url: string): Promise<Answer> {
    return call(url, { headers: { Cookie: this.header() } }).then((answer) => this.take(answer));
  }
  post(url: string, fields: Record<string, string>): Promise<Answer> {
    return call(url, { method: 'POST', headers: { Cookie: this.header(), 'Content-Type': FORM }, body: form(fields) }).then((answer) =>
      this.take(answer),
    );
  }
}

type Server = Pick<BenchFixture, 'url' | 'paths'>;
interface Tokens {
  access_token: string;
  refresh_token: string;
}

/**
 * The sign-in between authorize and resume: given the browser and the interaction's page, it answers the
 * server's 303 back to the engine (the resume).
 */
export type SignIn = (jar: Jar, interactionUrl: string) => Promise<Answer>;

export const authorizeUrl = (server: Server, client: BenchClient) =>
  `${server.url}${server.paths.authorize}?${new URLSearchParams({
    client_id: client.id,
    redirect_uri: client.redirectUri,
    response_type: 'code',
    scope: SCOPE,
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  })}`;

export async function exchangeCode(server: Server, client: BenchClient, redirected: Answer): Promise<Tokens> {
  const code = new URL(String(redirected.headers.location)).searchParams.get('code');
  if (!code) throw new Error(`no code: ${redirected.headers.location}`);
  const answer = expectStatus(
    await call(server.url + server.paths.token, {
      method: 'POST',
      headers: { 'Content-Type': FORM, Authorization: basic(client.id, client.secret) },
      body: form({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: VERIFIER }),
    }),
    200,
    'code exchange',
  );
  return JSON.parse(answer.body) as Tokens;
}

/** One whole sign-in in a new browser: its cookies and the tokens of the code it ends with. */
export async function signInBrowser(server: Server, client: BenchClient, signIn: SignIn): Promise<{ jar: Jar; tokens: Tokens }> {
  const jar = new Jar();
  const started = expectStatus(await jar.get(authorizeUrl(server, client)), 303, 'authorize');
  const resume = expectStatus(await signIn(jar, new URL(String(started.headers.location), server.url).href), 303, 'sign-in');
  const resumed = expectStatus(await jar.get(new URL(String(resume.headers.location), server.url).href), 303, 'resume');
  return { jar, tokens: await exchangeCode(server, client, resumed) };
}

/** Single sign-on: authorize with a signed-in browser's cookies, no page, then the code exchange. */
export async function ssoTokens(server: Server, client: BenchClient, jar: Jar): Promise<Tokens> {
  const authorized = expectStatus(await jar.get(authorizeUrl(server, client)), 303, 'authorize (signed in)');
  return exchangeCode(server, client, authorized);
}

/** The fixture's tokens and sessions: LOOPS browsers, each signed in by `signInAs(loop)`. */
export async function signedInFixture(
  server: Server,
  client: BenchClient,
  signInAs: (loop: number) => SignIn,
): Promise<Pick<BenchFixture, 'accessTokens' | 'refreshTokens' | 'sessionCookies' | 'signedWith'>> {
  const accessTokens: string[] = [];
  const refreshTokens: string[] = [];
  const sessionCookies: string[] = [];
  const algTokens = Object.fromEntries(OTHER_ALGS.map((alg) => [alg, [] as string[]]));
  for (let loop = 0; loop < LOOPS; loop += 1) {
    const { jar, tokens } = await signInBrowser(server, client, signInAs(loop));
    const again = await ssoTokens(server, client, jar);
    accessTokens.push(tokens.access_token, again.access_token);
    refreshTokens.push(tokens.refresh_token, again.refresh_token);
    for (const alg of OTHER_ALGS) algTokens[alg]!.push((await ssoTokens(server, { ...client, id: algClientId(alg) }, jar)).refresh_token);
    sessionCookies.push(jar.header());
  }
  const signedWith = Object.fromEntries(
    OTHER_ALGS.map((alg) => [alg, { client: { ...client, id: algClientId(alg) }, refreshTokens: algTokens[alg]! }]),
  ) as BenchFixture['signedWith'];
  return { accessTokens, refreshTokens, sessionCookies, signedWith };
}
