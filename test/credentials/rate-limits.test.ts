/**
 * Brute-force protection on the real Redis (a private key prefix per server): account lockout after 5
 * failed passwords, the per-IP limit, second-factor attempts per sign-in, and per-process counters without Redis.
 */
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { privateRedis } from '../helpers/redis.js';
import { totpCode } from '../helpers/totp.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { alertText, enterCode, enterEmail, enterEmailAndPassword, enterPassword, startFlow } from './flow.js';

const LOCKED = 'Too many failed sign-in attempts for this account. Try again in 15 minutes.';

describe.each(engines)('rate limits (%s)', (engine) => {
  const web = useBrowser();

  describe('with the default limits', () => {
    let idp: CredentialsServer;
    beforeAll(async () => {
      idp = await startCredentialsServer(engine, web.rp.url, [{ slug: 'wiki' }]);
    });
    afterAll(async () => idp?.close());

    test('after 5 failed passwords the account is refused for the window, even with the right password', async () => {
      const user = await idp.user();
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, user.email);
      for (let i = 0; i < 5; i++) {
        await enterPassword(web.page, `wrong password ${i}`);
        await expect(alertText(web.page)).resolves.toBe('Incorrect e-mail or password.');
      }
      await enterPassword(web.page, PASSWORD);
      await expect(alertText(web.page)).resolves.toBe(LOCKED);
      expect(web.page.url()).toContain('/if/flow/');
      // A new sign-in does not reset the counter.
      await web.context.clearCookies();
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, user.email);
      await enterPassword(web.page, PASSWORD);
      await expect(alertText(web.page)).resolves.toBe(LOCKED);
    });

    test('passwords typed on the first page count the same: 5 failures there lock the account', async () => {
      const user = await idp.user();
      for (let i = 0; i < 5; i++) {
        await startFlow(web.page, idp.apps.wiki!);
        await enterEmailAndPassword(web.page, user.email, `wrong password ${i}`);
        await expect(alertText(web.page)).resolves.toBe('Incorrect e-mail or password.');
      }
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmailAndPassword(web.page, user.email, PASSWORD);
      await expect(alertText(web.page)).resolves.toBe(LOCKED);
      expect(web.page.url()).toContain('/if/flow/');
    });

    test('an unknown e-mail gets the same messages, in the same order', async () => {
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, `ghost-${Date.now()}@example.com`);
      for (let i = 0; i < 5; i++) {
        await enterPassword(web.page, `guess ${i}`);
        await expect(alertText(web.page)).resolves.toBe('Incorrect e-mail or password.');
      }
      await enterPassword(web.page, 'guess 6');
      await expect(alertText(web.page)).resolves.toBe(LOCKED);
    });

    test('a correct password clears the failures counted so far', async () => {
      const user = await idp.user();
      const flow = await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, user.email);
      for (let i = 0; i < 4; i++) await enterPassword(web.page, `wrong ${i}`);
      await enterPassword(web.page, PASSWORD);
      await flow.finish();
      await web.context.clearCookies();
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, user.email);
      for (let i = 0; i < 5; i++) {
        await enterPassword(web.page, `wrong again ${i}`);
        await expect(alertText(web.page)).resolves.toBe('Incorrect e-mail or password.');
      }
    });

    test('second-factor attempts are limited to 5 per sign-in', async () => {
      const user = await idp.user();
      const key = idp.settings.secrets.key;
      const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(user.pk))!, key, true))!;
      await confirmTotp(idp.store, user.pk, totpCode(secret, Date.now() - 30_000), key);
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, user.email);
      await enterPassword(web.page, PASSWORD);
      for (let i = 0; i < 5; i++) {
        await enterCode(web.page, 'not-a-code');
        await expect(alertText(web.page)).resolves.toMatch(/not right/);
      }
      await enterCode(web.page, totpCode(secret));
      await expect(alertText(web.page)).resolves.toBe('Too many attempts. Go back to the application and sign in again.');
    });
  });

  test('the per-IP limit counts failures only: right passwords from one address pass it, guesses are stopped', async () => {
    const idp = await startCredentialsServer(engine, web.rp.url, [{ slug: 'wiki' }], {
      rate_limits: { account_failures: 5, account_window_seconds: 900, ip_per_minute: 3, interaction_attempts: 5 },
    });
    try {
      // An office behind one address: five people sign in with their right passwords, more than the limit of 3.
      for (let i = 0; i < 5; i++) {
        const colleague = await idp.user();
        const context = await web.browser.newContext();
        const flow = await startFlow(await context.newPage(), idp.apps.wiki!);
        const page = context.pages()[0]!;
        await enterEmail(page, colleague.email);
        await enterPassword(page, PASSWORD);
        await expect(flow.finish()).resolves.toHaveProperty('id_token');
        await context.close();
      }
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, `someone-${Date.now()}@example.com`);
      for (let i = 0; i < 3; i++) {
        await enterPassword(web.page, `try ${i}`);
        await expect(alertText(web.page)).resolves.toBe('Incorrect e-mail or password.');
      }
      await enterPassword(web.page, 'try 4');
      await expect(alertText(web.page)).resolves.toMatch(/^Too many attempts from your network\. Try again in \d+ seconds?\.$/);
    } finally {
      await idp.close();
    }
  });

  test('with Redis unreachable, sign-in keeps working and the limits hold with per-process counters', async () => {
    const redis = await privateRedis();
    const idp = await startCredentialsServer(engine, web.rp.url, [{ slug: 'wiki' }], { redis: { url: redis.url, prefix: 'outage' } });
    try {
      const user = await idp.user();
      const flow = await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, user.email);
      await redis.stop();
      await enterPassword(web.page, PASSWORD);
      expect((await flow.finish()).access_token).toEqual(expect.any(String));

      await web.context.clearCookies();
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, user.email);
      for (let i = 0; i < 5; i++) {
        await enterPassword(web.page, `wrong during the outage ${i}`);
        await expect(alertText(web.page)).resolves.toBe('Incorrect e-mail or password.');
      }
      await enterPassword(web.page, PASSWORD);
      await expect(alertText(web.page)).resolves.toBe(LOCKED);
      await redis.start();
      await new Promise((resolve) => setTimeout(resolve, 3000)); // the mail worker reconnects (retries back off up to 2 s) before it can close
    } finally {
      await idp.close();
      await redis.stop();
    }
  });
});
