/**
 * The admin console in chromium: an administrator signs in through the console's own client with TOTP, finds one
 * person among a thousand, deactivates them (the application's webhook hears it, their refresh token is refused),
 * removes another's second factors and signs a third out everywhere, each after a confirmation page; a member without a
 * second factor is asked to enrol one, a non-member gets a 403 page, and a post without the session's CSRF token
 * changes nothing. axe-core finds no serious or critical problem on any page, light or dark, and each page is kept as
 * a screenshot under var/test/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { scrollsSideways, seriousViolations } from '../helpers/accessibility.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/eventually.js';
import { postToken } from '../helpers/oidc-rp.js';
import { runFlow, tokensOf } from '../helpers/oidc-flow.js';
import { totpCode } from '../helpers/totp.js';
import { PASSWORD } from '../helpers/oidc-server.js';
import { startCredentialsServer, type CredentialsServer } from '../credentials/credentials-server.js';
import { enterCode, enterEmail, enterPassword, heading } from '../credentials/flow.js';
import { confirmTotp, hasTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { changeGroupMembership, createGroup } from '../../src/domain/groups.js';
import { sealer } from '../../src/account/seal.js';

const SCREENSHOTS = path.resolve('var/test/screenshots');

describe.each(engines)('admin console (%s)', (engine) => {
  const web = useBrowser();
  let webhooks: Receiver;
  let idp: CredentialsServer;
  let admins: string;

  beforeAll(async () => {
    webhooks = await startReceiver();
    idp = await startCredentialsServer(
      engine,
      web.rp.url,
      [{ slug: 'wiki', webhook: { url: webhooks.url, secret: 'whsec-console-0123456789abcdef' } }],
      {
        webhooks: { allow_insecure_loopback: true, timeout_seconds: 2, retries: 1, backoff_seconds: 0.05 },
        worker: { embedded: true, relay_interval_ms: 50 },
      },
    );
    admins = (await createGroup(idp.store, { name: 'idp-admins' })).pk;
    // A thousand people to look through, made in one statement.
    await sql`insert into users (username, email, name)
      select 'crowd' || n || '@example.com', 'crowd' || n || '@example.com', 'Crowd Member ' || n from generate_series(1, 1000) as n`.execute(
      idp.db.database.db,
    );
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await idp?.close();
    await webhooks?.close();
  });

  /** A member of idp-admins with TOTP enrolled; returns its address and secret. */
  async function administrator() {
    const user = await idp.user({ name: 'Ada Admin' });
    await changeGroupMembership(idp.store, admins, user.pk, 'added', []);
    const row = (await idp.store.users.findById(user.pk))!;
    const secret = (await pendingTotpSecret(idp.store, row, idp.settings.secrets.key, true))!;
    await confirmTotp(idp.store, user.pk, totpCode(secret, Date.now() - 30_000), idp.settings.secrets.key);
    return { ...user, secret };
  }

  async function signInToConsole(page: Page, admin: { email: string; secret: string }) {
    await page.goto(`${idp.url}/admin/`);
    await enterEmail(page, admin.email);
    await enterPassword(page, PASSWORD);
    await enterCode(page, totpCode(admin.secret));
    await expect(heading(page)).resolves.toBe('Overview');
  }

  const refresh = (token: string) => {
    const app = idp.apps.wiki!;
    return postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
  };

  async function confirm(page: Page, action: string) {
    await page.getByRole('link', { name: action }).click();
    await page.getByRole('button', { name: action }).click();
  }

  test('an administrator with TOTP finds one person among a thousand and deactivates them: the webhook hears it, their refresh fails', async () => {
    const target = await idp.user({ name: 'Needle Haystack' });
    const tokens = await tokensOf(await runFlow(web.page, idp.apps.wiki!, { email: target.email, password: PASSWORD }));
    await web.context.clearCookies();

    await signInToConsole(web.page, await administrator());
    await expect(web.page.locator('.figures').first().textContent()).resolves.toMatch(/People\s*100\d/);
    await web.page.getByRole('link', { name: 'People' }).first().click();
    await expect(web.page.getByRole('status').textContent()).resolves.toMatch(/^1–25 of 100\d$/);
    await web.page.getByLabel('Name or e-mail contains').fill('needle');
    await web.page.getByRole('button', { name: 'Search' }).click();
    await expect(web.page.getByRole('status').textContent()).resolves.toBe('1–1 of 1');
    await web.page.getByRole('link', { name: 'Needle Haystack' }).click();
    await expect(heading(web.page)).resolves.toBe('Needle Haystack');

    await web.page.getByRole('link', { name: 'Deactivate' }).click();
    await expect(heading(web.page)).resolves.toBe('Deactivate Needle Haystack?');
    await web.page.getByRole('button', { name: 'Deactivate' }).click();
    await expect(web.page.getByRole('status').textContent()).resolves.toContain('Deactivated');
    await expect(web.page.locator('.lead').textContent()).resolves.toContain('Deactivated');
    const heard = await eventually('the webhook of the deactivation', async () =>
      webhooks.received.map((hit) => JSON.parse(hit.raw.toString())).find((body) => body.event_type === 'user_deactivated'),
    );
    expect(heard.data.user_id).toBe(target.uuid);
    expect((await refresh(tokens.refresh_token!)).body.error).toBe('invalid_grant');
    const audit = await idp.store.audit.list({ user: target.uuid, action: 'user.updated' }, { offset: 0, limit: 5 });
    expect(audit.rows[0]?.actor_type).toBe('user'); // the administrator, not an API token
  });

  test("removing a person's second factors and signing another out everywhere, each after its confirmation", async () => {
    const lost = await idp.user({ name: 'Lost Phone' });
    const row = (await idp.store.users.findById(lost.pk))!;
    const secret = (await pendingTotpSecret(idp.store, row, idp.settings.secrets.key, true))!;
    await confirmTotp(idp.store, lost.pk, totpCode(secret, Date.now() - 30_000), idp.settings.secrets.key);
    const roaming = await idp.user({ name: 'Roaming Person' });
    const tokens = await tokensOf(await runFlow(web.page, idp.apps.wiki!, { email: roaming.email, password: PASSWORD }));
    await web.context.clearCookies();

    await signInToConsole(web.page, await administrator());
    await web.page.goto(`${idp.url}/admin/users/${lost.pk}/`);
    await confirm(web.page, 'Remove second factors');
    await expect(web.page.getByRole('status').textContent()).resolves.toContain('Their second factors were removed');
    await expect(hasTotp(idp.store, lost.pk)).resolves.toBe(false);
    await web.page.getByRole('link', { name: 'Set a password' }).click();
    await web.page.getByLabel(/^New password/).fill('short');
    await web.page.getByRole('button', { name: 'Set the password' }).click();
    await expect(web.page.locator('#password-password-error').textContent()).resolves.toMatch(/at least/);
    await web.page.getByLabel(/^New password/).fill('a brand new and long passphrase');
    await web.page.getByRole('button', { name: 'Set the password' }).click();
    await expect(web.page.locator('.notice').textContent()).resolves.toContain('The password was set');

    await web.page.goto(`${idp.url}/admin/users/${roaming.pk}/`);
    await confirm(web.page, 'Sign out everywhere');
    await expect(web.page.getByRole('status').textContent()).resolves.toContain('Signed out everywhere');
    expect((await refresh(tokens.refresh_token!)).body.error).toBe('invalid_grant');
  });

  test('a non-member gets a 403 page; a member without a second factor must enrol one; a forged post changes nothing', async () => {
    const outsider = await idp.user();
    await web.page.goto(`${idp.url}/admin/`);
    await enterEmail(web.page, outsider.email);
    await enterPassword(web.page, PASSWORD);
    await expect(heading(web.page)).resolves.toBe('Set up two-step verification'); // the console's client requires one
    await web.context.clearCookies();

    // A non-member with a second factor: past the sign-in, refused by the console.
    const stranger = await idp.user();
    const row = (await idp.store.users.findById(stranger.pk))!;
    const secret = (await pendingTotpSecret(idp.store, row, idp.settings.secrets.key, true))!;
    await confirmTotp(idp.store, stranger.pk, totpCode(secret, Date.now() - 30_000), idp.settings.secrets.key);
    const response = await web.page.goto(`${idp.url}/admin/`);
    await enterEmail(web.page, stranger.email);
    await enterPassword(web.page, PASSWORD);
    await enterCode(web.page, totpCode(secret));
    await expect(heading(web.page)).resolves.toBe('You cannot use the admin console');
    expect(response).not.toBeNull();
    await web.context.clearCookies();

    const victim = await idp.user();
    await signInToConsole(web.page, await administrator());
    const forged = await web.page.request.post(`${idp.url}/admin/users/${victim.pk}/deactivate`, { form: { csrf: 'not-the-token' } });
    expect(forged.status()).toBe(403);
    expect((await idp.store.users.findById(victim.pk))!.is_active).toBe(true);
  });

  test('people and groups: a bad address shown in place and nothing made, a person added and edited, a group made, joined, renamed and deleted', async () => {
    const taken = await idp.user();
    await signInToConsole(web.page, await administrator());
    await web.page.goto(`${idp.url}/admin/users/new`);
    await web.page.getByLabel('Name', { exact: true }).fill('Grace Console');
    await web.page.getByLabel('E-mail', { exact: true }).fill(taken.email);
    await web.page.getByRole('button', { name: 'Add' }).click();
    await expect(web.page.getByRole('alert').first().textContent()).resolves.toBe('Nothing was saved: see below.');
    await expect(web.page.locator('#person-email-error').textContent()).resolves.toContain('already');
    await expect(idp.store.users.findByEmail('grace.console@example.com')).resolves.toBeUndefined();
    // What the API's schema refuses (attributes that are not an object) is shown beside its field too.
    await web.page.getByLabel('E-mail', { exact: true }).fill('grace.console@example.com');
    await web.page.getByLabel('Attributes (a JSON object)').fill('[1]');
    await web.page.getByRole('button', { name: 'Add' }).click();
    await expect(web.page.getByRole('alert').first().textContent()).resolves.toBe('Nothing was saved: see below.');
    await expect(web.page.locator('#person-attributes-error').textContent()).resolves.toBe('Expected an object.');
    await expect(idp.store.users.findByEmail('grace.console@example.com')).resolves.toBeUndefined();
    await web.page.getByLabel('Attributes (a JSON object)').fill('');
    await web.page.getByRole('button', { name: 'Add' }).click();
    await expect(web.page.locator('.notice').textContent()).resolves.toBe('The person was added.');
    const grace = (await idp.store.users.findByEmail('grace.console@example.com'))!;
    await web.page.getByRole('link', { name: 'Edit' }).click();
    await web.page.getByLabel('Attributes (a JSON object)').fill('{"department": "Navy"}');
    await web.page.getByRole('button', { name: 'Save' }).click();
    await expect(web.page.locator('.notice').textContent()).resolves.toBe('Saved.');
    expect((await idp.store.users.findById(grace.id))!.attributes).toEqual({ department: 'Navy' });

    await web.page.goto(`${idp.url}/admin/groups/`);
    await web.page.getByLabel('Name', { exact: true }).fill('console-crew');
    await web.page.getByRole('button', { name: 'Create the group' }).click();
    await expect(web.page.locator('.notice').textContent()).resolves.toBe('The group was created.');
    await web.page.getByLabel('E-mail of the person').fill('grace.console@example.com');
    await web.page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(web.page.getByRole('region', { name: 'Members of console-crew' }).textContent()).resolves.toContain('Grace Console');
    const joined = await eventually('the membership webhook', async () =>
      webhooks.received
        .map((hit) => JSON.parse(hit.raw.toString()))
        .find((body) => body.event_type === 'group_membership_change' && body.data.group_name === 'console-crew'),
    );
    expect(joined.data).toMatchObject({ user_id: grace.uuid, action: 'added' });
    await web.page.getByLabel('Name', { exact: true }).fill('console-crew-renamed');
    await web.page.getByRole('button', { name: 'Rename' }).click();
    await expect(heading(web.page)).resolves.toBe('console-crew-renamed');
    await confirm(web.page, 'Delete the group');
    await expect(web.page.locator('.notice').textContent()).resolves.toContain('The group was deleted');
    await expect(idp.store.groups.findByName('console-crew-renamed')).resolves.toBeUndefined();
  });

  test('a failed delivery is sent again; the audit log filters and exports CSV; a token is made once and revoked; keys rotate', async () => {
    const admin = await administrator();
    webhooks.respond = () => 500;
    const fails = await idp.user({ name: 'Delivery Fails' });
    await idp.api(`/api/v3/core/users/${fails.pk}/`, { method: 'PATCH', json: { name: 'Delivery Fails Renamed' } });
    const failed = await eventually(
      'a failed delivery',
      async () => (await idp.store.events.listDeliveries({ status: 'failed' }, { offset: 0, limit: 10 })).rows[0],
    );
    webhooks.respond = () => 200;

    await signInToConsole(web.page, admin);
    await web.page.goto(`${idp.url}/admin/deliveries/?kind=backchannel&status=failed`);
    await expect(web.page.getByText('No delivery matches.').count()).resolves.toBe(1);
    await web.page.goto(`${idp.url}/admin/deliveries/?kind=webhook&status=failed`);
    // The delivery that failed (the update's may fail later and list first).
    await web.page.getByRole('region', { name: 'Deliveries, newest first' }).locator(`a[href="/admin/deliveries/${failed.id}/"]`).click();
    await web.page.getByRole('button', { name: 'Send it again' }).click();
    await expect(web.page.getByRole('status').textContent()).resolves.toContain('Sent again');
    await eventually('redelivered', async () => (await idp.store.events.findDelivery(failed.id))?.status === 'delivered' || undefined);

    await web.page.goto(`${idp.url}/admin/audit/?person=${encodeURIComponent(fails.email)}`);
    await expect(web.page.getByRole('region', { name: 'Audit entries, newest first' }).textContent()).resolves.toContain('user.updated');
    const csv = await web.page.request.get(`${idp.url}/admin/audit/export.csv?person=${encodeURIComponent(fails.email)}`);
    expect(csv.headers()['content-type']).toContain('text/csv');
    const rows = (await csv.text()).trim().split('\r\n');
    expect(rows[0]).toBe('at,action,user,actor_type,actor,app,ip,user_agent,details');
    expect(rows.slice(1).map((row) => row.split(',')[1])).toEqual(expect.arrayContaining(['user.updated', 'user.created']));

    await web.page.goto(`${idp.url}/admin/tokens/`);
    await web.page.getByLabel('Name (who or what uses it)').fill('console-made');
    await web.page.getByLabel('users:read').check();
    await web.page.getByRole('button', { name: 'Make the token' }).click();
    const token = (await web.page.locator('code.link').textContent())!.trim();
    expect((await fetch(`${idp.url}/api/v3/core/users/?page_size=1`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    await web.page.goto(`${idp.url}/admin/tokens/`);
    await expect(web.page.locator('code.link').count()).resolves.toBe(0); // shown once
    await web.page.getByRole('link', { name: 'Revoke console-made' }).click();
    await web.page.getByRole('button', { name: 'Revoke the token' }).click();
    await expect(web.page.getByRole('status').textContent()).resolves.toBe('The token was revoked.');
    expect((await fetch(`${idp.url}/api/v3/core/users/?page_size=1`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);

    const before = (await idp.store.signingKeys.list()).filter((key) => key.state === 'active').map((key) => key.kid);
    await web.page.goto(`${idp.url}/admin/`);
    await web.page.getByRole('link', { name: 'Rotate the signing keys' }).click();
    await web.page.getByRole('button', { name: 'Rotate the keys' }).click();
    await expect(web.page.getByRole('status').textContent()).resolves.toContain('New signing keys were made');
    const after = (await idp.store.signingKeys.list()).filter((key) => key.state === 'active').map((key) => key.kid);
    expect(after).not.toEqual(before);
  });

  test("a person's sessions one by one; the audit log by who acted; the console's idle and absolute limits", async () => {
    const traveller = await idp.user({ name: 'Two Browsers' });
    const other = await web.browser.newContext();
    const otherPage = await other.newPage();
    const [first, second] = [
      await tokensOf(await runFlow(otherPage, idp.apps.wiki!, { email: traveller.email, password: PASSWORD })),
      await tokensOf(await runFlow(web.page, idp.apps.wiki!, { email: traveller.email, password: PASSWORD })),
    ];
    await other.close();
    await web.context.clearCookies();
    const admin = await administrator();
    await signInToConsole(web.page, admin);
    await web.page.goto(`${idp.url}/admin/users/${traveller.pk}/`);
    const sessions = web.page.getByRole('region', { name: 'Sessions' });
    await expect(sessions.getByRole('button', { name: /^End the session/ }).count()).resolves.toBe(2);
    await sessions
      .getByRole('button', { name: /^End the session/ })
      .first()
      .click();
    await expect(web.page.locator('.notice').textContent()).resolves.toContain('That session ended');
    await expect(sessions.getByRole('button', { name: /^End the session/ }).count()).resolves.toBe(1);
    const answers = [(await refresh(first.refresh_token!)).status, (await refresh(second.refresh_token!)).status].sort();
    expect(answers).toEqual([200, 400]); // the session ended, the other browser's still refreshes

    await web.page.goto(`${idp.url}/admin/audit/?by=${encodeURIComponent(admin.email)}&action=logout`);
    await expect(web.page.getByRole('region', { name: 'Audit entries, newest first' }).textContent()).resolves.toContain(traveller.uuid);

    // Past admin.absolute_seconds (the cookie says when the console session began), and past its idle limit.
    const seals = sealer(idp.settings.secrets.key);
    const cookie = (await web.context.cookies()).find((candidate) => candidate.name === 'idp_admin')!;
    const value = seals.unseal<{ sid: string; sub: string; since: number }>('idp_admin', cookie.value)!;
    const replace = async (sealed: string) => web.context.addCookies([{ ...cookie, value: sealed }]);
    await replace(seals.seal('idp_admin', { ...value, since: Date.now() - 13 * 3600_000 }, 600));
    await web.page.goto(`${idp.url}/admin/`);
    expect(new URL(web.page.url()).pathname).toMatch(/^\/if\/flow\/admin\//); // signing in again, not the overview
    await replace(seals.seal('idp_admin', value, -1));
    await web.page.goto(`${idp.url}/admin/`);
    await expect(heading(web.page)).resolves.toBe('Sign in'); // a fresh sign-in, whatever single sign-on session there is
  });

  test('an action longer than admin.reauth_seconds after the sign-in asks to sign in again first, and changes nothing', async () => {
    const admin = await administrator();
    const someone = await idp.user();
    await signInToConsole(web.page, admin);
    await web.page.goto(`${idp.url}/admin/users/${someone.pk}/confirm/deactivate`);
    // The console's sign-in an hour old, as the engine keeps it.
    for (const session of await idp.store.oidcPayloads.findByAccount('Session', admin.uuid, new Date())) {
      const { consumed_at: _consumed, ...row } = session;
      await idp.store.oidcPayloads.upsert({ ...row, payload: { ...session.payload, loginTs: Math.floor(Date.now() / 1000) - 3600 } });
    }
    await web.page.getByRole('button', { name: 'Deactivate' }).click();
    expect(new URL(web.page.url()).pathname).toMatch(/^\/if\/flow\/admin\//);
    expect((await idp.store.users.findById(someone.pk))!.is_active).toBe(true);
  });

  test('axe-core finds no serious or critical problem on any page, light or dark; each page is kept as a screenshot', async () => {
    const someone = await idp.user({ name: 'Axe Subject' });
    await signInToConsole(web.page, await administrator());
    // Keyboard only: the navigation comes first, each link reachable with Tab and followed with Enter.
    await web.page.keyboard.press('Tab');
    await expect(web.page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Overview');
    await web.page.keyboard.press('Tab');
    await web.page.keyboard.press('Enter');
    await expect(heading(web.page)).resolves.toBe('People');
    const group = (await createGroup(idp.store, { name: `axe-group-${Date.now()}` })).pk;
    const pages = {
      overview: '/admin/',
      people: '/admin/users/?q=crowd',
      person: `/admin/users/${someone.pk}/`,
      'new-person': '/admin/users/new',
      confirm: `/admin/users/${someone.pk}/confirm/deactivate`,
      groups: '/admin/groups/',
      group: `/admin/groups/${group}/`,
      applications: '/admin/applications/',
      application: '/admin/applications/wiki/',
      deliveries: '/admin/deliveries/',
      audit: '/admin/audit/',
      tokens: '/admin/tokens/',
    };
    for (const colorScheme of ['light', 'dark'] as const) {
      // The pages' CSP allows no injected script: axe runs in a context that bypasses it, with the console's cookies.
      const context = await web.browser.newContext({ bypassCSP: true, colorScheme, viewport: { width: 390, height: 844 } });
      await context.addCookies(await web.context.cookies());
      const page = await context.newPage();
      for (const [name, pathname] of Object.entries(pages)) {
        await page.goto(`${idp.url}${pathname}`);
        const violations = await seriousViolations(page);
        expect({ name, colorScheme, violations }).toEqual({ name, colorScheme, violations: [] });
        expect({ name, sideways: await scrollsSideways(page) }).toEqual({ name, sideways: false });
        await page.screenshot({ path: path.join(SCREENSHOTS, `admin-${name}-${colorScheme}.png`), fullPage: true });
      }
      await context.close();
    }
  });
});
