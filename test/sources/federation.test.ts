/**
 * Signing in through upstream identity providers, on both stores, against a real upstream (a second instance of
 * oidc-provider on its own port: test/helpers/upstream-provider.ts), driven over HTTP with a cookie jar per origin;
 * the application redeems its code with openid-client as for a local sign-in. Covers: accounts made just in time
 * (events, audit, groups), sign-in by link, linking an existing account only after its password (and second factor),
 * the attack cases (forged state, replayed callback, ID tokens with a wrong nonce or audience or a foreign signature,
 * an upstream claiming an existing user's unverified address), refusals, and errors upstream.
 */
import * as client from 'openid-client';
import { engines } from '../helpers/database.js';
import { startOidcServer, PASSWORD, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { startCallbackServer, authorizationRequest, discover, exchangeCode, type CallbackServer } from '../helpers/oidc-rp.js';
import { startUpstreamProvider, type Tampering, type UpstreamAccount, type UpstreamProvider } from '../helpers/upstream-provider.js';
import { totpCode } from '../helpers/totp.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { updateUser } from '../../src/domain/users.js';
import type { HttpResponse } from '../helpers/http-client.js';
import { FederationClient, formEndingWith, headingOf, isPage } from './federation-client.js';

const UPSTREAM_SECRET = 'upstream-client-secret-0123456789';

describe.each(engines)('sign-in through upstream identity providers (%s)', (engine) => {
  let rp: CallbackServer;
  let upstream: UpstreamProvider;
  let idp: OidcTestServer;
  let unreachablePort: number;
  let n = 0;

  beforeAll(async () => {
    [rp, upstream] = await Promise.all([startCallbackServer(), startUpstreamProvider()]);
    unreachablePort = 9; // discard: nothing listens there on a test machine
    const oidc = (slug: string, extra: Record<string, unknown> = {}) => ({
      slug,
      type: 'oidc',
      name: `Corp ${slug}`,
      issuer: upstream.issuer,
      client_id: `idp-${slug}`,
      client_secret: UPSTREAM_SECRET,
      ...extra,
    });
    idp = await startOidcServer(
      engine,
      rp.url,
      [
        { slug: 'wiki', sources: '*' },
        { slug: 'notes', sources: ['corp'], access_group: 'notes-readers' },
        { slug: 'vault', sources: ['corp', 'strong'], require_mfa: true },
        { slug: 'crew', sources: ['grouped'], access_group: 'grouped:crew' },
        { slug: 'plain-app' },
      ],
      {
        overrides: {
          sources: [
            oidc('corp', { groups: ['from-corp'], email_domains: ['realm.example'] }),
            oidc('grouped', { groups_claim: 'groups', scopes: ['openid', 'email', 'profile', 'groups'] }),
            oidc('strong', { trust_upstream_mfa: true }),
            oidc('trusting', { trust_email: true }),
            oidc('closed', { provision: false }),
            {
              slug: 'plain',
              type: 'oauth2',
              name: 'Plain OAuth',
              authorization_url: `${upstream.issuer}/auth`,
              token_url: `${upstream.issuer}/token`,
              userinfo_url: `${upstream.issuer}/me`,
              client_id: 'idp-plain',
              client_secret: UPSTREAM_SECRET,
              token_endpoint_auth_method: 'client_secret_post',
              scopes: ['openid', 'email', 'profile'],
              claims: { sub: 'sub', email: 'email', name: 'name' },
            },
            oidc('gone', { issuer: `http://127.0.0.1:${unreachablePort}` }),
          ],
        },
      },
    );
    upstream.register(
      ['corp', 'trusting', 'closed', 'plain', 'grouped', 'strong'].map((slug) => ({
        client_id: `idp-${slug}`,
        client_secret: UPSTREAM_SECRET,
        redirect_uris: [`${idp.url}/source/oauth/callback/${slug}/`],
        ...(slug === 'plain' ? { token_endpoint_auth_method: 'client_secret_post' as const } : {}),
      })),
    );
  });

  afterAll(async () => {
    await idp?.close();
    await upstream?.close();
    await rp?.close();
  });

  const fresh = () => `person${++n}-${Date.now()}`;
  const callbackOf = (slug: string) => `${idp.url}/source/oauth/callback/${slug}/`;

  interface Started {
    http: FederationClient;
    app: TestApp;
    config: client.Configuration;
    request: Awaited<ReturnType<typeof authorizationRequest>>;
    /** The sign-in page of the interaction. */
    page: HttpResponse;
  }

  /** The application's authorization request (openid-client), up to the sign-in page. */
  async function start(appSlug = 'wiki', http = new FederationClient()): Promise<Started> {
    const app = idp.apps[appSlug]!;
    const config = await discover(app);
    const request = await authorizationRequest(config, app);
    const page = await http.follow(await http.request(request.url.href), app.redirect_uri);
    if (!isPage(page) || page.status !== 200) throw new Error(`no sign-in page: ${String(page)}`);
    return { http, app, config, request, page };
  }

  /** "Continue with {name}", up to the browser's arrival at the service's callback (not requested yet). */
  async function toCallback(started: Started, source: string): Promise<URL> {
    const form = formEndingWith(started.page, `/source/${source}`);
    const sent = await started.http.request(form.action, { form: form.fields });
    const arrived = await started.http.follow(sent, callbackOf(source));
    if (isPage(arrived)) throw new Error(`did not come back from the upstream: ${arrived.status} ${arrived.text.slice(0, 300)}`);
    return arrived;
  }

  /** From the callback on: where the browser ends, the application's callback (URL) or a page. */
  const land = async (started: Started, callback: URL) =>
    started.http.follow(await started.http.request(callback.href), started.app.redirect_uri);

  /** A whole sign-in through `source` as `subject`: the page or the application's callback it ends at. */
  async function federate(source: string, subject: string, account?: UpstreamAccount, appSlug = 'wiki') {
    upstream.signInAs(subject, account);
    const started = await start(appSlug);
    return { started, landed: await land(started, await toCallback(started, source)) };
  }

  const tokensAt = (started: Started, landed: HttpResponse | URL) => {
    if (isPage(landed)) throw new Error(`ended on a page: ${landed.status} ${headingOf(landed)} ${landed.text.slice(0, 300)}`);
    return exchangeCode(started.config, landed, started.request);
  };

  const auditActions = async (uuid: string) =>
    (await idp.store.audit.list({ user: uuid }, { offset: 0, limit: 100 })).rows.map((row) => row.action);

  test('the sign-in page offers the application its sources, above the e-mail form; another application none', async () => {
    const { page } = await start('wiki');
    expect(page.text).toContain('Continue with Corp corp');
    expect(page.text).toContain('Continue with Plain OAuth');
    expect(page.text.indexOf('Continue with Corp corp')).toBeLessThan(page.text.indexOf('name="email"'));
    expect((await start('notes')).page.text).not.toContain('Continue with Corp trusting');
    expect((await start('plain-app')).page.text).not.toContain('Continue with');
    // A source the application does not offer cannot be started by posting to it.
    const notes = await start('notes');
    const form = formEndingWith(notes.page, '/source/corp');
    const refused = await notes.http.request(form.action.replace('/source/corp', '/source/trusting'), { form: form.fields });
    expect(refused.status).toBe(404);
  });

  test('the first sign-in makes an account just in time (like the API: events, audit, groups); tokens say fed', async () => {
    const subject = fresh();
    const email = `${subject}@corp.example`;
    const { started, landed } = await federate('corp', subject, { email, email_verified: true, name: 'Grace Hopper' });
    const tokens = await tokensAt(started, landed);
    const claims = tokens.claims()!;
    expect(claims.amr).toEqual(['fed']);
    const user = (await idp.store.users.findByEmail(email))!;
    expect(user).toMatchObject({ uuid: claims.sub, name: 'Grace Hopper', email_verified: true, is_active: true });
    const info = await client.fetchUserInfo(started.config, tokens.access_token, claims.sub);
    expect(info).toMatchObject({ email, name: 'Grace Hopper' });
    await expect(idp.store.sourceLinks.find('corp', subject)).resolves.toMatchObject({ user_id: user.id });
    expect(await auditActions(user.uuid)).toEqual(expect.arrayContaining(['user.created', 'source.linked', 'sign_in.succeeded']));
    const groups = (await idp.store.users.groupsOf([user.id])).get(user.id)!;
    expect(groups).toEqual([await idp.groupUuid('from-corp')]);
    const events = await idp.db.database.db.selectFrom('outbox').select(['type', 'body']).where('user_uuid', '=', user.uuid).execute();
    expect(events.map((event) => JSON.parse(event.body))).toContainEqual(
      expect.objectContaining({
        event_type: 'group_membership_change',
        data: expect.objectContaining({ group_name: 'from-corp', action: 'added' }),
      }),
    );
  });

  test('the next sign-in of that person goes by the link, whatever address the upstream gives now', async () => {
    const subject = fresh();
    const first = await federate('corp', subject, { email: `${subject}@corp.example`, email_verified: true });
    const firstSub = (await tokensAt(first.started, first.landed)).claims()!.sub;
    const again = await federate('corp', subject, { email: `renamed-${subject}@corp.example`, email_verified: true });
    expect((await tokensAt(again.started, again.landed)).claims()!.sub).toBe(firstSub);
  });

  test('an oauth2 source (no OpenID Connect) reads the person from its userinfo URL through the claim mapping', async () => {
    const subject = fresh();
    const email = `${subject}@plain.example`;
    const { started, landed } = await federate('plain', subject, { email, name: 'Plain Person' });
    const claims = (await tokensAt(started, landed)).claims()!;
    expect(claims.amr).toEqual(['fed']);
    const user = (await idp.store.users.findByEmail(email))!;
    expect(user).toMatchObject({ uuid: claims.sub, name: 'Plain Person', email_verified: false });
    await expect(idp.store.sourceLinks.find('plain', subject)).resolves.toMatchObject({ user_id: user.id });
  });

  test('an existing account is never linked silently: its password is asked once, then the link holds', async () => {
    const local = await idp.user();
    const subject = fresh();
    const { started, landed } = await federate('corp', subject, { email: local.email, email_verified: true });
    if (!isPage(landed)) throw new Error('signed in without proving the account');
    expect(headingOf(landed)).toBe('Link your account');
    await expect(idp.store.sourceLinks.find('corp', subject)).resolves.toBeUndefined();

    const form = formEndingWith(landed, '/link');
    const wrong = await started.http.request(form.action, { form: { ...form.fields, password: 'not the password' } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('That password is not right.');
    await expect(idp.store.sourceLinks.find('corp', subject)).resolves.toBeUndefined();

    const right = await started.http.request(form.action, { form: { ...formEndingWith(wrong, '/link').fields, password: PASSWORD } });
    const claims = (await tokensAt(started, await started.http.follow(right, started.app.redirect_uri))).claims()!;
    expect(claims).toMatchObject({ sub: local.uuid, amr: ['fed', 'pwd'] });
    await expect(idp.store.sourceLinks.find('corp', subject)).resolves.toMatchObject({ user_id: local.pk });
    expect(await auditActions(local.uuid)).toContain('source.linked');

    const next = await federate('corp', subject, { email: local.email, email_verified: true });
    expect((await tokensAt(next.started, next.landed)).claims()).toMatchObject({ sub: local.uuid, amr: ['fed'] });
    // Another person at the same source claiming the address: one link per user and source, so refused outright.
    const impostor = await federate('corp', fresh(), { email: local.email, email_verified: true });
    expect(isPage(impostor.landed) && impostor.landed.status).toBe(403);
    expect((impostor.landed as HttpResponse).text).toContain('is linked to another Corp corp account already');
  });

  test('linking an account with a second factor asks for it too; the link is made only after it', async () => {
    const local = await idp.user();
    const key = idp.settings.secrets.key;
    const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(local.pk))!, key, true))!;
    await confirmTotp(idp.store, local.pk, totpCode(secret, Date.now() - 30_000), key);
    const subject = fresh();
    const { started, landed } = await federate('corp', subject, { email: local.email, email_verified: true });
    const linkForm = formEndingWith(landed as HttpResponse, '/link');
    const mfa = await started.http.request(linkForm.action, { form: { ...linkForm.fields, password: PASSWORD } });
    const mfaForm = formEndingWith(mfa, '/mfa');
    await expect(idp.store.sourceLinks.find('corp', subject)).resolves.toBeUndefined();
    const done = await started.http.request(mfaForm.action, { form: { ...mfaForm.fields, code: totpCode(secret) } });
    const claims = (await tokensAt(started, await started.http.follow(done, started.app.redirect_uri))).claims()!;
    expect(claims).toMatchObject({ sub: local.uuid, amr: ['fed', 'pwd', 'otp'] });
    await expect(idp.store.sourceLinks.find('corp', subject)).resolves.toMatchObject({ user_id: local.pk });
  });

  test("attack: an upstream claiming an existing user's unverified address gets the proof page, even where e-mail is trusted", async () => {
    const victim = await idp.user();
    const attacker = fresh();
    const { landed } = await federate('trusting', attacker, { email: victim.email, email_verified: false });
    expect(isPage(landed) && headingOf(landed)).toBe('Link your account');
    await expect(idp.store.sourceLinks.find('trusting', attacker)).resolves.toBeUndefined();
    // The same upstream vouching for the address (email_verified true) links at once: trust_email, as configured.
    const owner = fresh();
    const trusted = await federate('trusting', owner, { email: victim.email, email_verified: true });
    expect((await tokensAt(trusted.started, trusted.landed)).claims()).toMatchObject({ sub: victim.uuid, amr: ['fed'] });
    // Without trust_email, a verified address is not enough either.
    const other = await idp.user();
    const untrusted = await federate('corp', fresh(), { email: other.email, email_verified: true });
    expect(isPage(untrusted.landed) && headingOf(untrusted.landed)).toBe('Link your account');
  });

  test('attack: a forged state finds no sign-in, and the upstream is never asked for tokens', async () => {
    const before = upstream.tokenRequests;
    const http = new FederationClient();
    const forged = await http.request(`${callbackOf('corp')}?code=stolen&state=${client.randomState()}`);
    expect(forged.status).toBe(400);
    expect(headingOf(forged)).toBe('This sign-in has expired');
    // A genuine answer with another state than this browser was sent with: refused the same way.
    upstream.signInAs(fresh(), { email: `${fresh()}@corp.example` });
    const started = await start();
    const callback = await toCallback(started, 'corp');
    callback.searchParams.set('state', client.randomState());
    const swapped = await started.http.request(callback.href);
    expect(swapped.status).toBe(400);
    expect(upstream.tokenRequests).toBe(before);
  });

  test('attack: a replayed callback is refused, even with the request cookie put back', async () => {
    const subject = fresh();
    upstream.signInAs(subject, { email: `${subject}@corp.example` });
    const started = await start();
    const callback = await toCallback(started, 'corp');
    const jar = started.http.jar(idp.url);
    const cookies = [...jar.cookies];
    await tokensAt(started, await land(started, callback));
    const tokenRequests = upstream.tokenRequests;

    const replayed = await started.http.request(callback.href);
    expect(replayed.status).toBe(400);
    jar.cookies.splice(0, jar.cookies.length, ...cookies); // the cookie as it was before the first use
    const withCookie = await started.http.request(callback.href);
    expect(withCookie.status).toBe(400);
    expect(headingOf(withCookie)).toBe('This sign-in has expired');
    expect(upstream.tokenRequests).toBe(tokenRequests);
  });

  test.each<[string, Tampering]>([
    ['a wrong nonce', { claims: { nonce: 'someone-elses-nonce' } }],
    ['another audience', { claims: { aud: 'another-client' } }],
    ['an expired ID token', { claims: { exp: Math.floor(Date.now() / 1000) - 3600 } }],
    ['a signature by a key the upstream does not publish', { foreignKey: true }],
  ])('attack: an ID token with %s is refused; no account is made', async (_case, tampering) => {
    const subject = fresh();
    const email = `${subject}@corp.example`;
    upstream.signInAs(subject, { email, email_verified: true });
    const started = await start();
    const callback = await toCallback(started, 'corp');
    upstream.tamperNextIdToken(tampering);
    const landed = await land(started, callback);
    if (!isPage(landed)) throw new Error('signed in with a bad ID token');
    expect(landed.status).toBe(400);
    expect(headingOf(landed)).toBe('Corp corp did not sign you in');
    expect(landed.text).toContain('could not be verified');
    expect(landed.text).toContain('Back to sign-in');
    await expect(idp.store.users.findByEmail(email)).resolves.toBeUndefined();
    await expect(idp.store.sourceLinks.find('corp', subject)).resolves.toBeUndefined();
  });

  test('an error from the upstream ends on a readable page leading back to the sign-in, which still works', async () => {
    upstream.signInAs(fresh(), {});
    const started = await start();
    const form = formEndingWith(started.page, '/source/corp');
    const sent = await started.http.request(form.action, { form: form.fields });
    const state = new URL(sent.headers.get('location')!).searchParams.get('state')!;
    const refused = await started.http.request(`${callbackOf('corp')}?error=access_denied&state=${state}`);
    expect(refused.status).toBe(400);
    expect(headingOf(refused)).toBe('Corp corp did not sign you in');
    expect(refused.text).toContain('The sign-in was cancelled, or refused.');
    const back = /href="([^"]+)">Back to sign-in/.exec(refused.text)![1]!;
    const page = await started.http.request(new URL(back, idp.url).href);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Continue with Corp corp');
  });

  test('an unreachable upstream ends on a page that says so, not a 500', async () => {
    const started = await start();
    const form = formEndingWith(started.page, '/source/gone');
    const answer = await started.http.request(form.action, { form: form.fields });
    expect(answer.status).toBe(502);
    expect(headingOf(answer)).toBe('Corp gone cannot be reached');
    expect(answer.text).toContain('Back to sign-in');
  });

  test('provision: false refuses people without an account; an upstream without an address cannot make one', async () => {
    const closed = await federate('closed', fresh(), { email: `${fresh()}@corp.example`, email_verified: true });
    expect(isPage(closed.landed) && closed.landed.status).toBe(403);
    expect((closed.landed as HttpResponse).text).toContain('new accounts are not created this way');
    const nameless = await federate('corp', fresh(), { name: 'No Address' });
    expect(isPage(nameless.landed) && nameless.landed.status).toBe(403);
    expect((nameless.landed as HttpResponse).text).toContain('did not share a usable e-mail address');
  });

  test('a deactivated user is refused through their link', async () => {
    const subject = fresh();
    const email = `${subject}@corp.example`;
    const first = await federate('corp', subject, { email, email_verified: true });
    await tokensAt(first.started, first.landed);
    await updateUser(idp.store, (await idp.store.users.findByEmail(email))!.id, { is_active: false });
    const again = await federate('corp', subject, { email, email_verified: true });
    expect(isPage(again.landed) && again.landed.status).toBe(403);
    expect((again.landed as HttpResponse).text).toContain('This account is deactivated.');
  });

  test("home-realm discovery: an address in a source's domain goes straight there, as login_hint; others get the password page", async () => {
    const subject = fresh();
    upstream.signInAs(subject, { email: `${subject}@realm.example`, email_verified: true });
    const started = await start('wiki');
    const form = formEndingWith(started.page, '/email');
    const sent = await started.http.request(form.action, { form: { ...form.fields, email: `${subject}@Realm.Example` } });
    expect(sent.status).toBe(303);
    const to = new URL(sent.headers.get('location')!);
    expect(to.origin).toBe(upstream.issuer);
    expect(to.searchParams.get('login_hint')).toBe(`${subject}@Realm.Example`);
    const callback = await started.http.follow(sent, callbackOf('corp'));
    if (isPage(callback)) throw new Error(`did not come back from the upstream: ${callback.status}`);
    const claims = (await tokensAt(started, await land(started, callback))).claims()!;
    expect(claims.amr).toEqual(['fed']);
    await expect(idp.store.sourceLinks.find('corp', subject)).resolves.toMatchObject({ user_id: expect.any(Number) });

    // A domain that only looks alike, and an application that does not offer the source: the password page.
    for (const [appSlug, email] of [
      ['wiki', `${subject}@sub.realm.example`],
      ['plain-app', `${subject}@realm.example`],
    ] as const) {
      const other = await start(appSlug);
      const otherForm = formEndingWith(other.page, '/email');
      const page = await other.http.request(otherForm.action, { form: { ...otherForm.fields, email } });
      expect(page.status).toBe(200);
      expect(page.text).toContain('name="password"');
    }
  });

  test('upstream groups are kept in step at each sign-in under the prefix; other groups are left alone; an access group follows', async () => {
    const subject = fresh();
    const email = `${subject}@grouped.example`;
    const first = await federate('grouped', subject, { email, email_verified: true, groups: ['eng', 'ops'] }, 'wiki');
    const sub = (await tokensAt(first.started, first.landed)).claims()!.sub;
    const user = (await idp.store.users.findByUuid(sub))!;
    const names = async () => {
      const uuids = (await idp.store.users.groupsOf([user.id])).get(user.id)!;
      return (await Promise.all(uuids.map((uuid) => idp.store.groups.findByUuid(uuid)))).map((group) => group!.name).sort();
    };
    expect(await names()).toEqual(['grouped:eng', 'grouped:ops']);

    // An administrator's group stays; the upstream's list decides the prefixed ones.
    const manual = (await idp.api('/api/v3/core/groups/', { json: { name: `manual-${subject}` } })).body;
    await idp.api(`/api/v3/core/groups/${manual.pk}/add_user/`, { json: { pk: user.id } });
    const outsider = await federate('grouped', subject, { email, email_verified: true, groups: ['eng'] }, 'crew');
    expect(outsider.landed instanceof URL && outsider.landed.searchParams.get('error')).toBe('access_denied');
    expect(await names()).toEqual(['grouped:eng', `manual-${subject}`].sort());

    // Joining the upstream's crew opens the application whose access group it is, at this very sign-in.
    const member = await federate('grouped', subject, { email, email_verified: true, groups: ['eng', 'crew'] }, 'crew');
    expect((await tokensAt(member.started, member.landed)).claims()!.sub).toBe(sub);
    expect(await names()).toEqual(['grouped:crew', 'grouped:eng', `manual-${subject}`].sort());

    // The same events as the API's.
    const events = await idp.db.database.db.selectFrom('outbox').select(['body']).where('user_uuid', '=', sub).execute();
    const changes = events
      .map((event) => JSON.parse(event.body))
      .filter((body) => body.event_type === 'group_membership_change')
      .map((body) => `${body.data.action} ${body.data.group_name}`);
    expect(changes).toEqual(expect.arrayContaining(['added grouped:ops', 'removed grouped:ops', 'added grouped:crew']));
  });

  test('a linked account gets its upstream groups once the link is made', async () => {
    const local = await idp.user();
    const subject = fresh();
    const { started, landed } = await federate('grouped', subject, { email: local.email, email_verified: true, groups: ['linked'] });
    const form = formEndingWith(landed as HttpResponse, '/link');
    const right = await started.http.request(form.action, { form: { ...form.fields, password: PASSWORD } });
    await tokensAt(started, await started.http.follow(right, started.app.redirect_uri));
    const uuids = (await idp.store.users.groupsOf([local.pk])).get(local.pk)!;
    expect(uuids).toContain(await idp.groupUuid('grouped:linked'));
  });

  test("trust_upstream_mfa: the upstream's second factor meets require_mfa; without one, or from an untrusting source, ours is asked", async () => {
    const strong = await federate('strong', fresh(), { email: `${fresh()}@strong.example`, amr: ['pwd', 'otp'] }, 'vault');
    expect((await tokensAt(strong.started, strong.landed)).claims()!.amr).toEqual(['fed', 'mfa']);
    const weak = await federate('strong', fresh(), { email: `${fresh()}@strong.example`, amr: ['pwd'] }, 'vault');
    expect(() => formEndingWith(weak.landed as HttpResponse, '/enrol')).not.toThrow();
    const untrusted = await federate('corp', fresh(), { email: `${fresh()}@corp.example`, amr: ['pwd', 'mfa'] }, 'vault');
    expect(() => formEndingWith(untrusted.landed as HttpResponse, '/enrol')).not.toThrow();
  });

  test("the application's access group and require_mfa apply unchanged", async () => {
    const outsider = await federate('corp', fresh(), { email: `${fresh()}@corp.example` }, 'notes');
    expect(outsider.landed instanceof URL && outsider.landed.searchParams.get('error')).toBe('access_denied');
    const enrolling = await federate('corp', fresh(), { email: `${fresh()}@corp.example` }, 'vault');
    expect(() => formEndingWith(enrolling.landed as HttpResponse, '/enrol')).not.toThrow();
  });
});
