/**
 * Per-account limits on every typed secret, probed as an attacker with many addresses would (a new client IP and
 * a new sign-in for each try), through the real pages, Redis counters, mail queue and SMTP listener, on every
 * store: setup and reset codes share one budget of mails and of guesses per account; second-factor codes, recovery
 * codes and passkey answers another; an address without an account sees the same pages and waits; and every
 * spelling of an address that finds the account shares its counters (docs/credentials.md "Brute-force protection").
 */
import { everyEngine as engines } from '../helpers/database.js';
import { privateRedis } from '../helpers/redis.js';
import { codeIn, startSmtpCapture, type SmtpCapture } from '../helpers/smtp.js';
import { totpCode } from '../helpers/totp.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { alertOf, headingOf, hiddenField, visit, type SignInVisit } from './visitor.js';

const NEW_PASSWORD = 'a long and entirely new passphrase';
const TOO_MANY_MAILS = /^We have sent as many codes as we can for now\. .* try again in (59|60) minutes\.$/;
const TOO_MANY_CODES = 'Too many wrong codes have been entered for this account. Try again in 24 hours.';
const TOO_MANY_SECOND_FACTORS = 'Too many failed verification attempts for this account. Try again in 24 hours.';
const LOCKED = 'Too many failed sign-in attempts for this account. Try again in 15 minutes.';
const CODE_DID_NOT_WORK = 'That code did not work. Check the latest e-mail we sent, or ask for a new code.';

/** Another 6-digit code than `code`. */
const wrongOf = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

let lastIp = 0;
/** A client address not used before in this file. */
const newIp = () => `198.51.${Math.floor(++lastIp / 250)}.${(lastIp % 250) + 1}`;

describe.each(engines)('per-account limits on typed secrets (%s)', (engine) => {
  let smtp: SmtpCapture;
  let idp: CredentialsServer;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    idp = await startCredentialsServer(engine, 'http://127.0.0.1:1/callback', [{ slug: 'wiki' }], {
      server: { trust_proxy: true, proxy_hops: 1 },
      mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
    });
  });
  afterAll(async () => {
    await idp?.close();
    await smtp?.close();
  });

  const signIn = () => visit(idp, idp.apps.wiki!, newIp());
  const setup = (at: SignInVisit, code: string) => at.post('setup', { code, password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
  const reset = (at: SignInVisit, ticket: string, code: string) =>
    at.post('reset', { ticket, code, password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
  const resetCode = (at: SignInVisit) => idp.store.passwordSetup.findCode(`reset:${at.uid}`);

  test('setup codes: twenty sign-ins from twenty addresses get five codes mailed; the others are told how long to wait', async () => {
    const user = await idp.user({ password: null });
    const visits: SignInVisit[] = [];
    const answers = [];
    for (let i = 0; i < 20; i++) {
      visits.push(await signIn());
      answers.push(await visits[i]!.post('email', { email: user.email }));
    }
    expect(answers.map((page) => page.status)).toEqual([...Array(5).fill(200), ...Array(15).fill(429)]);
    expect(headingOf(answers[4]!)).toBe('Set your password');
    for (const refused of answers.slice(5)) expect(alertOf(refused)).toMatch(TOO_MANY_MAILS);
    // A code is stored (and then mailed) for the first five sign-ins only.
    const stored = await Promise.all(visits.map((at) => idp.store.passwordSetup.findCode(at.uid)));
    expect(stored.map(Boolean)).toEqual([...Array(5).fill(true), ...Array(15).fill(false)]);
    for (let i = 0; i < 5; i++) expect(codeIn(await smtp.waitFor(user.email))).toMatch(/^\d{6}$/);
  });

  test('setup and reset codes share one budget of wrong codes per account; over it even the right code is refused unchecked, and none is mailed', async () => {
    const user = await idp.user({ password: null });
    const one = await signIn();
    await one.post('email', { email: user.email });
    const first = codeIn(await smtp.waitFor(user.email));
    for (let i = 0; i < 5; i++) expect((await setup(one, wrongOf(first))).status).toBe(400);

    // Another sign-in, another address, the "forgot your password?" page: its code counts in the same budget.
    const two = await signIn();
    const ticket = hiddenField(await two.post('forgot', { email: user.email.toUpperCase() }), 'ticket');
    const second = codeIn(await smtp.waitFor(user.email));
    for (let i = 0; i < 4; i++) expect(alertOf(await reset(two, ticket, wrongOf(second)))).toBe(CODE_DID_NOT_WORK);

    const three = await signIn();
    await three.post('email', { email: user.email });
    const third = codeIn(await smtp.waitFor(user.email));
    expect((await setup(three, wrongOf(third))).status).toBe(400); // the tenth

    const refused = await setup(three, third);
    expect(refused.status).toBe(429);
    expect(alertOf(refused)).toBe(TOO_MANY_CODES);
    expect(await idp.store.passwordSetup.findCode(three.uid)).toMatchObject({ attempts: 1, used_at: null }); // not checked
    const refusedReset = await reset(two, ticket, second);
    expect(refusedReset.status).toBe(429);
    expect(alertOf(refusedReset)).toBe(TOO_MANY_CODES);
    expect(await resetCode(two)).toMatchObject({ attempts: 4, used_at: null });

    // No new code while the guesses are used up: the page says so, and nothing is stored or mailed.
    const four = await signIn();
    const noCode = await four.post('email', { email: user.email });
    expect(noCode.status).toBe(429);
    expect(alertOf(noCode)).toBe(TOO_MANY_CODES);
    expect(await idp.store.passwordSetup.findCode(four.uid)).toBeUndefined();
    expect((await (await signIn()).post('forgot', { email: user.email })).status).toBe(429);
  });

  test('a right code clears the count of wrong ones', async () => {
    const user = await idp.user({ password: null });
    const one = await signIn();
    await one.post('email', { email: user.email });
    const code = codeIn(await smtp.waitFor(user.email));
    for (let i = 0; i < 4; i++) await setup(one, wrongOf(code));
    const two = await signIn();
    await two.post('email', { email: user.email });
    const right = codeIn(await smtp.waitFor(user.email));
    for (let i = 0; i < 5; i++) await setup(two, wrongOf(right));
    const three = await signIn();
    await three.post('email', { email: user.email });
    expect((await setup(three, codeIn(await smtp.waitFor(user.email)))).status).toBe(303); // the tenth: right

    // Ten wrong reset codes are checked again before the next is refused.
    const after = await signIn();
    const ticket = hiddenField(await after.post('forgot', { email: user.email }), 'ticket');
    const next = await signIn();
    const nextTicket = hiddenField(await next.post('forgot', { email: user.email }), 'ticket');
    const codes = [codeIn(await smtp.waitFor(user.email)), codeIn(await smtp.waitFor(user.email))];
    for (let i = 0; i < 5; i++) expect((await reset(after, ticket, wrongOf(codes[0]!))).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await reset(next, nextTicket, wrongOf(codes[1]!))).status).toBe(400);
    expect((await reset(next, nextTicket, codes[1]!)).status).toBe(429);
  });

  test('an address without an account sees the same pages and waits as one with an account', async () => {
    const known = await idp.user();
    /** What a person would read: six requests for a code from six addresses, then eleven codes typed. */
    async function probe(email: string, codeOf: () => Promise<string>) {
      const seen: Array<[number, string | undefined]> = [];
      const visits: Array<{ at: SignInVisit; ticket: string; code: string }> = [];
      for (let i = 0; i < 6; i++) {
        const at = await signIn();
        const page = await at.post('forgot', { email });
        seen.push([page.status, alertOf(page)]);
        if (page.status === 200) visits.push({ at, ticket: hiddenField(page, 'ticket'), code: await codeOf() });
      }
      // Four tries in each of the first two sign-ins, then three in the third: the eleventh is over the budget.
      for (const [index, tries] of [4, 4, 3].entries()) {
        const { at, ticket, code } = visits[index]!;
        for (let i = 0; i < tries; i++) {
          const page = await reset(at, ticket, wrongOf(code));
          seen.push([page.status, alertOf(page)]);
        }
      }
      return seen;
    }
    const ghost = await probe(`ghost-${Date.now()}@example.com`, async () => '000000');
    const real = await probe(known.email, async () => codeIn(await smtp.waitFor(known.email)));
    expect(real).toEqual(ghost);
    expect(ghost.map(([status]) => status)).toEqual([...Array(5).fill(200), 429, ...Array(10).fill(400), 429]);
    expect(ghost[5]![1]).toMatch(TOO_MANY_MAILS);
    expect(ghost.at(-1)![1]).toBe(TOO_MANY_CODES);
  });

  describe('second factor', () => {
    async function withTotp() {
      const user = await idp.user();
      const key = idp.settings.secrets.key;
      const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(user.pk))!, key, true))!;
      expect(await confirmTotp(idp.store, user.pk, totpCode(secret, Date.now() - 30_000), key)).toBe('ok');
      /** A 6-digit code of none of the steps accepted now. */
      const wrong = () => {
        const near = [-60, -30, 0, 30, 60].map((s) => totpCode(secret, Date.now() + s * 1000));
        return ['000000', '111111', '222222', '333333'].find((code) => !near.includes(code))!;
      };
      return { ...user, secret, wrong };
    }
    /** A new sign-in from a new address with the right password: the second-factor page and its ticket. */
    async function atSecondFactor(email: string) {
      const at = await signIn();
      const page = await at.post('email', { email, password: PASSWORD });
      expect(headingOf(page)).toBe('Two-step verification');
      return { at, ticket: hiddenField(page, 'ticket') };
    }
    const failedChecks = async (uuid: string) =>
      (await idp.store.audit.list({ user: uuid, action: 'sign_in.failed' }, { offset: 0, limit: 100 })).total;

    test('twelve sign-ins with the right password from new addresses: ten wrong codes are checked, then even the right one is refused', async () => {
      const user = await withTotp();
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 12; i++) {
        const { at, ticket } = await atSecondFactor(user.email);
        for (let j = 0; j < 5; j++) {
          last = await at.post('mfa', { ticket, code: user.wrong() });
          statuses.push(last.status);
        }
      }
      expect(statuses).toEqual([...Array(10).fill(400), ...Array(50).fill(429)]);
      expect(alertOf(last!)).toBe(TOO_MANY_SECOND_FACTORS);
      const { at, ticket } = await atSecondFactor(user.email);
      const right = await at.post('mfa', { ticket, code: totpCode(user.secret) });
      expect(right.status).toBe(429);
      expect(alertOf(right)).toBe(TOO_MANY_SECOND_FACTORS);
      expect(await failedChecks(user.uuid)).toBe(10);
    });

    test('guesses sent at once cannot slip past: of twenty in parallel, ten are checked', async () => {
      const user = await withTotp();
      const steps = await Promise.all(Array.from({ length: 20 }, () => atSecondFactor(user.email)));
      const answers = await Promise.all(steps.map(({ at, ticket }) => at.post('mfa', { ticket, code: user.wrong() })));
      expect(answers.filter((page) => page.status === 400)).toHaveLength(10);
      expect(answers.filter((page) => page.status === 429)).toHaveLength(10);
      expect(await failedChecks(user.uuid)).toBe(10);
    });

    test('recovery codes and passkey answers count in the same budget; a right code clears it', async () => {
      const user = await withTotp();
      const one = await atSecondFactor(user.email);
      for (let i = 0; i < 4; i++) expect((await one.at.post('mfa', { ticket: one.ticket, code: 'abcde-fghij' })).status).toBe(400);
      const two = await atSecondFactor(user.email);
      for (let i = 0; i < 4; i++)
        expect((await two.at.post('passkey', { ticket: two.ticket, response: '{"id":"not-a-passkey"}' })).status).toBe(400);
      const three = await atSecondFactor(user.email);
      for (let i = 0; i < 2; i++) expect((await three.at.post('mfa', { ticket: three.ticket, code: user.wrong() })).status).toBe(400);
      const four = await atSecondFactor(user.email);
      expect((await four.at.post('mfa', { ticket: four.ticket, code: 'abcde-fghij' })).status).toBe(429);
      expect((await four.at.post('passkey', { ticket: four.ticket, response: '{}' })).status).toBe(429);

      // Nine wrong, then the right code: the count starts again.
      const other = await withTotp();
      for (let i = 0; i < 2; i++) {
        const at = await atSecondFactor(other.email);
        for (let j = 0; j < (i ? 4 : 5); j++) await at.at.post('mfa', { ticket: at.ticket, code: other.wrong() });
      }
      const right = await atSecondFactor(other.email);
      expect((await right.at.post('mfa', { ticket: right.ticket, code: totpCode(other.secret) })).status).toBe(303);
      const again = await atSecondFactor(other.email);
      for (let i = 0; i < 5; i++) expect((await again.at.post('mfa', { ticket: again.ticket, code: other.wrong() })).status).toBe(400);
    });
  });

  describe('spellings of an address', () => {
    test('İ (U+0130) for i finds the account and shares its counters: five reset mails an hour, not ten', async () => {
      const user = await idp.user({ email: `alice-${Date.now()}@example.com` });
      const spellings = [
        user.email,
        user.email,
        user.email,
        user.email.replace('alice', 'al\u0130ce'),
        user.email.replace('alice', 'AL\u0130CE'),
      ];
      for (const email of spellings) expect((await (await signIn()).post('forgot', { email })).status).toBe(200);
      const sixth = await (await signIn()).post('forgot', { email: user.email.replace('alice', 'al\u0130ce') });
      expect(sixth.status).toBe(429);
      expect(alertOf(sixth)).toMatch(TOO_MANY_MAILS);
      for (let i = 0; i < 5; i++) await smtp.waitFor(user.email);
    });

    test('a locked account takes no guesses under another spelling, not even the right password', async () => {
      const user = await idp.user({ email: `erin-${Date.now()}@example.com` });
      const ip = newIp();
      for (let i = 0; i < 5; i++) {
        const page = await (await visit(idp, idp.apps.wiki!, ip)).post('email', { email: user.email, password: `wrong ${i}` });
        expect(page.status).toBe(400);
      }
      for (const email of [user.email.replace('erin', 'er\u0130n'), user.email.toUpperCase()]) {
        const page = await (await visit(idp, idp.apps.wiki!, ip)).post('email', { email, password: PASSWORD });
        expect(page.status).toBe(429);
        expect(alertOf(page)).toBe(LOCKED);
      }
    });

    test('a spelling that finds no account (fullwidth, NFD, zero-width) mails nothing and takes nothing from the account', async () => {
      const user = await idp.user({ email: `dina-${Date.now()}@example.com` });
      const misses = [
        user.email.replace('d', '\uff44'), // fullwidth d
        user.email.replace('dina', 'd\u0130na').normalize('NFD'), // İ as I plus a combining dot: not what İ lowers to
        user.email.replace('dina', 'di\u0301na'), // a combining accent
        user.email.replace('dina', 'di\u200bna'), // zero-width space
        user.email.replace('dina', 'd\u200dina'), // zero-width joiner
      ];
      for (const email of misses) {
        for (let i = 0; i < 5; i++) {
          const at = await signIn();
          const page = await at.post('forgot', { email });
          expect(headingOf(page)).toBe('Check your e-mail');
          expect(await resetCode(at)).toBeUndefined();
        }
        expect((await (await signIn()).post('forgot', { email })).status).toBe(429); // its own counter
      }
      const at = await signIn();
      expect((await at.post('forgot', { email: user.email })).status).toBe(200);
      expect(await resetCode(at)).toMatchObject({ attempts: 0 });
      expect(codeIn(await smtp.waitFor(user.email))).toMatch(/^\d{6}$/);
      expect(smtp.messages.filter((mail) => mail.to.includes(user.email))).toHaveLength(1);
    });
  });
});

test('with Redis unreachable, the per-account budget holds with per-process counters', async () => {
  const redis = await privateRedis();
  const idp = await startCredentialsServer('pglite', 'http://127.0.0.1:1/callback', [{ slug: 'wiki' }], {
    server: { trust_proxy: true, proxy_hops: 1 },
    redis: { url: redis.url, prefix: 'outage' },
  });
  try {
    const user = await idp.user();
    const key = idp.settings.secrets.key;
    const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(user.pk))!, key, true))!;
    await confirmTotp(idp.store, user.pk, totpCode(secret, Date.now() - 30_000), key);
    await redis.stop();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const at = await visit(idp, idp.apps.wiki!, newIp());
      const ticket = hiddenField(await at.post('email', { email: user.email, password: PASSWORD }), 'ticket');
      for (let j = 0; j < 4; j++) statuses.push((await at.post('mfa', { ticket, code: 'abcde-fghij' })).status);
    }
    expect(statuses).toEqual([...Array(10).fill(400), 429, 429]);
    await redis.start();
    await new Promise((resolve) => setTimeout(resolve, 3000)); // the mail worker reconnects (retries back off up to 2 s) before it can close
  } finally {
    await idp.close();
    await redis.stop();
  }
});
