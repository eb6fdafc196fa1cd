/**
 * Signing in through a SAML 2.0 identity provider, on both stores, against a real one built on samlify (another SAML
 * implementation than the service's node-saml: test/helpers/saml-idp.ts), driven over HTTP with a cookie jar per
 * origin; the application redeems its code with openid-client. Covers: this service provider's metadata, accounts
 * made just in time by the persistent NameID (groups from an attribute), sign-in by link, linking only after the
 * account's password (or with trust_email and an attribute that says the address is verified), and the attacks:
 * unsigned, re-signed, expired and misaddressed answers, an answer to another request, a forged RelayState and a
 * replayed answer.
 */
import * as client from 'openid-client';
import { engines } from '../helpers/database.js';
import { startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { startCallbackServer, authorizationRequest, discover, exchangeCode, type CallbackServer } from '../helpers/oidc-rp.js';
import { startSamlIdp, type SamlIdp, type SamlPerson, type SamlTampering } from '../helpers/saml-idp.js';
import type { HttpResponse } from '../helpers/http-client.js';
import { FederationClient, formEndingWith, headingOf, isPage } from './federation-client.js';

describe.each(engines)('sign-in through a SAML identity provider (%s)', (engine) => {
  let rp: CallbackServer;
  let saml: SamlIdp;
  let idp: OidcTestServer;
  let n = 0;

  beforeAll(async () => {
    [rp, saml] = await Promise.all([startCallbackServer(), startSamlIdp()]);
    const source = (slug: string, extra: Record<string, unknown> = {}) => ({
      slug,
      type: 'saml',
      name: `SAML ${slug}`,
      idp_metadata_url: saml.metadataUrl,
      ...extra,
    });
    idp = await startOidcServer(engine, rp.url, [{ slug: 'wiki', sources: '*' }], {
      overrides: {
        sources: [
          source('corp', { groups_claim: 'groups' }),
          source('trusting', { trust_email: true, attributes: { email_verified: 'email_verified' } }),
        ],
      },
    });
    for (const slug of ['corp', 'trusting']) saml.trust(await (await fetch(`${idp.url}/source/saml/${slug}/metadata/`)).text());
  });
  afterAll(async () => {
    await idp?.close();
    await saml?.close();
    await rp?.close();
  });

  const fresh = () => `saml-person${++n}-${Date.now()}`;

  interface Started {
    http: FederationClient;
    app: TestApp;
    config: client.Configuration;
    request: Awaited<ReturnType<typeof authorizationRequest>>;
    page: HttpResponse;
  }

  async function start(): Promise<Started> {
    const http = new FederationClient();
    const app = idp.apps.wiki!;
    const config = await discover(app);
    const request = await authorizationRequest(config, app);
    const page = await http.follow(await http.request(request.url.href), app.redirect_uri);
    if (!isPage(page) || page.status !== 200) throw new Error(`no sign-in page: ${String(page)}`);
    return { http, app, config, request, page };
  }

  /** "Continue with …" up to the identity provider's answer: the form it would have the browser post to the ACS. */
  async function answerFrom(started: Started, source: string, person: SamlPerson, tampering?: SamlTampering) {
    saml.signInAs(person);
    if (tampering) saml.tamperNext(tampering);
    const form = formEndingWith(started.page, `/source/${source}`);
    const sent = await started.http.request(form.action, { form: form.fields });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')!.startsWith(`${saml.ssoUrl}?`)).toBe(true);
    return formEndingWith(await started.http.request(sent.headers.get('location')!), `/source/saml/${source}/acs/`);
  }

  /** Posts the answer to the ACS and follows the browser to the application's callback (a URL) or a page. */
  const post = async (started: Started, answer: { action: string; fields: Record<string, string> }) =>
    started.http.follow(await started.http.request(answer.action, { form: answer.fields }), started.app.redirect_uri);

  const tokensAt = (started: Started, landed: HttpResponse | URL) => {
    if (isPage(landed)) throw new Error(`ended on a page: ${landed.status} ${headingOf(landed)} ${landed.text.slice(0, 300)}`);
    return exchangeCode(started.config, landed, started.request);
  };

  test("this service provider's metadata: its URL is the entity ID, the ACS takes HTTP-POST; the sign-in page offers the source", async () => {
    const response = await fetch(`${idp.url}/source/saml/corp/metadata/`);
    expect(response.headers.get('content-type')).toContain('application/samlmetadata+xml');
    const xml = await response.text();
    expect(xml).toContain(`entityID="${idp.url}/source/saml/corp/metadata/"`);
    expect(xml).toMatch(new RegExp(`AssertionConsumerService[^>]*HTTP-POST[^>]*Location="${idp.url}/source/saml/corp/acs/"`));
    expect((await fetch(`${idp.url}/source/saml/nosuch/metadata/`)).status).toBe(404);
    expect((await start()).page.text).toContain('Continue with SAML corp');
  });

  test('a first sign-in makes an account just in time, linked by the NameID, in its groups; the next goes by the link', async () => {
    const nameId = fresh();
    const email = `${nameId}@saml.example`;
    const started = await start();
    const landed = await post(started, await answerFrom(started, 'corp', { nameId, email, name: 'Ada SAML', groups: ['eng', 'ops'] }));
    const claims = (await tokensAt(started, landed)).claims()!;
    expect(claims.amr).toEqual(['fed']);
    const user = (await idp.store.users.findByEmail(email))!;
    expect(user).toMatchObject({ uuid: claims.sub, name: 'Ada SAML', email_verified: false });
    await expect(idp.store.sourceLinks.find('corp', nameId)).resolves.toMatchObject({ user_id: user.id });
    const groups = (await idp.store.users.groupsOf([user.id])).get(user.id)!;
    expect(groups.sort()).toEqual([await idp.groupUuid('corp:eng'), await idp.groupUuid('corp:ops')].sort());

    const again = await start();
    const next = await post(again, await answerFrom(again, 'corp', { nameId, email: `renamed-${email}` }));
    expect((await tokensAt(again, next)).claims()!.sub).toBe(claims.sub);
  });

  test('an existing account is never linked silently; trust_email links it only when the attribute says verified', async () => {
    const local = await idp.user();
    const started = await start();
    const proof = await post(started, await answerFrom(started, 'corp', { nameId: fresh(), email: local.email, emailVerified: true }));
    expect(isPage(proof) && headingOf(proof)).toBe('Link your account');

    const unverified = await start();
    const asked = await post(
      unverified,
      await answerFrom(unverified, 'trusting', { nameId: fresh(), email: local.email, emailVerified: false }),
    );
    expect(isPage(asked) && headingOf(asked)).toBe('Link your account');

    const verified = await start();
    const landed = await post(
      verified,
      await answerFrom(verified, 'trusting', { nameId: fresh(), email: local.email, emailVerified: true }),
    );
    expect((await tokensAt(verified, landed)).claims()!.sub).toBe(local.uuid);
  });

  test.each<[string, SamlTampering]>([
    ['unsigned', { unsigned: true }],
    ['signed by a key the metadata does not hold', { foreignKey: true }],
    ['for another service provider', { audience: 'http://elsewhere.example/' }],
    ['expired', { expired: true }],
  ])('attack: an answer %s is refused on a readable page; nobody is signed in or made', async (_case, tampering) => {
    const nameId = fresh();
    const started = await start();
    const refused = await post(started, await answerFrom(started, 'corp', { nameId, email: `${nameId}@saml.example` }, tampering));
    if (!isPage(refused)) throw new Error('signed in with a bad answer');
    expect(refused.status).toBe(400);
    expect(headingOf(refused)).toBe('SAML corp did not sign you in');
    expect(refused.text).not.toMatch(/at .*\.js:\d+/); // no stack
    await expect(idp.store.sourceLinks.find('corp', nameId)).resolves.toBeUndefined();
    await expect(idp.store.users.findByEmail(`${nameId}@saml.example`)).resolves.toBeUndefined();
  });

  test('attack: an answer to another request, a forged RelayState and a replayed answer find no sign-in', async () => {
    const person = (nameId: string) => ({ nameId, email: `${nameId}@saml.example` });
    const expired = (landed: HttpResponse | URL) =>
      isPage(landed) && landed.status === 400 && headingOf(landed) === 'This sign-in has expired';

    const other = await start();
    expect(expired(await post(other, await answerFrom(other, 'corp', person(fresh()), { inResponseTo: '_not-this-request' })))).toBe(true);

    const forged = await start();
    const answer = await answerFrom(forged, 'corp', person(fresh()));
    const relayed = { ...answer, fields: { ...answer.fields, RelayState: 'A'.repeat(43) } };
    expect(expired(await post(forged, relayed))).toBe(true);

    const replayed = await start();
    const nameId = fresh();
    const used = await answerFrom(replayed, 'corp', person(nameId));
    const jar = replayed.http.jar(idp.url);
    const cookies = [...jar.cookies];
    await tokensAt(replayed, await post(replayed, used));
    // The same answer again: in the same browser (its request cookie gone), with the request cookie put back (its ID
    // spent on the server), and in another browser (no request of its own).
    expect(expired(await post(replayed, used))).toBe(true);
    jar.cookies.splice(0, jar.cookies.length, ...cookies);
    expect(expired(await post(replayed, used))).toBe(true);
    const thief = await start();
    expect(expired(await post(thief, used))).toBe(true);
  });
});
