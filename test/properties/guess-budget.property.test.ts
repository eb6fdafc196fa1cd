/**
 * Property: whatever mix of client addresses, spellings of an address and flows an attacker uses — wrong
 * passwords, setup codes, reset codes, second factors — sent all at once, the guesses checked against one account
 * never exceed its documented budget (docs/credentials.md "Brute-force protection"): per account, per account and
 * address, per account for codes (setup and reset together) and for second factors; and no more codes are mailed
 * than its budget. Each run has accounts of its own: A (password and TOTP) and B (no password yet).
 *
 * What counts as checked: a password answered "Incorrect e-mail or password." (bcrypt ran against the account);
 * a code try the store recorded against the account's code (its `attempts`); a second factor the audit trail
 * records as failed for the account. Which spellings find an account, the store's own lookup says.
 */
import fc from 'fast-check';
import { engines } from '../helpers/database.js';
import { totpCode } from '../helpers/totp.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { secretsFrom } from '../../src/domain/secrets.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from '../credentials/credentials-server.js';
import { alertOf, hiddenField, visit, type SignInVisit } from '../credentials/visitor.js';

const NUM_RUNS = 25;
/** Small budgets, so runs reach them; the per-sign-in and per-IP limits are out of the way. */
const BUDGET = {
  account_failures: 3,
  account_failures_all_addresses: 4,
  code_mails_per_hour: 3,
  code_failures: 4,
  second_factor_failures: 3,
};
const NEW_PASSWORD = 'a long and entirely new passphrase';

type Flow = 'password' | 'first-page' | 'setup' | 'reset' | 'totp' | 'recovery' | 'passkey';
const SPELLINGS = ['exact', 'upper', 'dotted-i', 'fullwidth', 'nfd', 'zero-width'] as const;
type Spelling = (typeof SPELLINGS)[number];

/** Every account address has an "i": `kiwi-…`. */
const spell = (email: string, how: Spelling) =>
  ({
    exact: email,
    upper: email.toUpperCase(),
    'dotted-i': email.replace('i', '\u0130'), // finds the account (the database lowers İ to i)
    fullwidth: email.replace('k', '\uff4b'),
    nfd: email.replace('i', '\u0130').normalize('NFD'), // I and a combining dot: finds nothing
    'zero-width': email.replace('w', '\u200bw'),
  })[how];

interface Prepared {
  at: SignInVisit;
  flow: Flow;
  ip: number;
  /** The posts of the guessing phase. */
  guesses: Array<[action: string, fields: Record<string, string>]>;
}

describe.each(engines)('guess budget per account (%s)', (engine) => {
  let idp: CredentialsServer;
  let run = 0;
  const totals = { passwords: 0, codes: 0, secondFactors: 0, mails: 0 };

  beforeAll(async () => {
    idp = await startCredentialsServer(engine, 'http://127.0.0.1:1/callback', [{ slug: 'wiki' }], {
      server: { trust_proxy: true, proxy_hops: 1 },
      rate_limits: { ...BUDGET, account_window_seconds: 3600, interaction_attempts: 1000 },
    });
  });
  afterAll(async () => idp?.close());

  const action = fc.record({
    flow: fc.constantFrom<Flow>('password', 'first-page', 'setup', 'reset', 'reset', 'totp', 'totp', 'recovery', 'passkey'),
    account: fc.constantFrom('A', 'B'),
    // One per try: a password may be typed under any spelling; a code or second factor goes with the sign-in's.
    spellings: fc.array(fc.constantFrom(...SPELLINGS, 'exact', 'dotted-i'), { minLength: 1, maxLength: 4 }),
    ip: fc.integer({ min: 1, max: 2 }),
  });

  test('for any mix of addresses, spellings and flows sent at once, the checked guesses per account stay within the budget', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 2, maxLength: 10 }), async (actions) => {
        run++;
        const key = idp.settings.secrets.key;
        const a = await idp.user({ email: `kiwi-${run}-a-${Date.now()}@example.com` });
        const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(a.pk))!, key, true))!;
        await confirmTotp(idp.store, a.pk, totpCode(secret, Date.now() - 30_000), key);
        const b = await idp.user({ email: `kiwi-${run}-b-${Date.now()}@example.com`, password: null });
        const accounts = { A: a, B: b };
        const idOf = async (email: string) => (await idp.store.credentials.lookUpAddress(email)).record?.user.id;
        const wrongTotp = () => {
          const near = [-60, -30, 0, 30, 60].map((s) => totpCode(secret, Date.now() + s * 1000));
          return ['000000', '111111', '222222', '333333'].find((code) => !near.includes(code))!;
        };
        /** A code that is not the stored one of `id` (none stored: any). */
        const wrongCode = async (id: string) => {
          const row = await idp.store.passwordSetup.findCode(id);
          return ['123456', '234567', '345678'].find((code) => secretsFrom(key).hash('setup-code', code) !== row?.code_hash)!;
        };

        // Each action's sign-in is brought to its page one by one (a second factor needs the right password, which
        // clears that account's password counters); then every guess of the run is sent at once.
        const prepared: Prepared[] = [];
        for (const { flow, account, spellings, ip } of actions) {
          const person = flow === 'setup' ? b : flow === 'totp' || flow === 'recovery' || flow === 'passkey' ? a : accounts[account];
          const email = spell(person.email, spellings[0]!);
          const at = await visit(idp, idp.apps.wiki!, `10.${run % 250}.${ip}.1`);
          const guesses: Prepared['guesses'] = [];
          const times = (fields: (spelling: Spelling) => Record<string, string>, to: string) =>
            spellings.forEach((spelling) => guesses.push([to, fields(spelling)]));
          const wrongPassword = (spelling: Spelling) => ({ email: spell(person.email, spelling), password: 'not the password' });
          if (flow === 'password') times(wrongPassword, 'password');
          if (flow === 'first-page') times(wrongPassword, 'email');
          if (flow === 'setup') {
            await at.post('email', { email });
            const code = await wrongCode(at.uid);
            times(() => ({ code, password: NEW_PASSWORD, confirmation: NEW_PASSWORD }), 'setup');
          }
          if (flow === 'reset') {
            const ticket = hiddenField(await at.post('forgot', { email }), 'ticket');
            const code = await wrongCode(`reset:${at.uid}`);
            times(() => ({ ticket, code, password: NEW_PASSWORD, confirmation: NEW_PASSWORD }), 'reset');
          }
          if (flow === 'totp' || flow === 'recovery' || flow === 'passkey') {
            const ticket = hiddenField(await at.post('email', { email, password: PASSWORD }), 'ticket');
            if (flow === 'totp') times(() => ({ ticket, code: wrongTotp() }), 'mfa');
            if (flow === 'recovery') times(() => ({ ticket, code: 'abcde-fghij' }), 'mfa');
            if (flow === 'passkey') times(() => ({ ticket, response: '{"id":"not-a-passkey"}' }), 'passkey');
          }
          prepared.push({ at, flow, ip, guesses });
        }
        const answers = await Promise.all(
          prepared.map(async (step) => ({
            step,
            pages: await Promise.all(step.guesses.map(([to, fields]) => step.at.post(to, fields))),
          })),
        );

        for (const person of Object.values(accounts)) {
          // Passwords: per account, and per account and address.
          const checked = new Map<number, number>();
          for (const { step, pages } of answers) {
            if (step.flow !== 'password' && step.flow !== 'first-page') continue;
            for (const [index, page] of pages.entries()) {
              const typed = step.guesses[index]![1].email!;
              if (alertOf(page) !== 'Incorrect e-mail or password.' || (await idOf(typed)) !== person.pk) continue;
              checked.set(step.ip, (checked.get(step.ip) ?? 0) + 1);
            }
          }
          const passwords = [...checked.values()].reduce((sum, n) => sum + n, 0);
          expect(passwords).toBeLessThanOrEqual(BUDGET.account_failures_all_addresses);
          for (const perAddress of checked.values()) expect(perAddress).toBeLessThanOrEqual(BUDGET.account_failures);

          // Codes: what the store counted against the account's codes (setup and reset), and how many were mailed.
          const rows = (
            await Promise.all(prepared.flatMap(({ at }) => [at.uid, `reset:${at.uid}`].map((id) => idp.store.passwordSetup.findCode(id))))
          ).filter((row) => row?.user_id === person.pk);
          const codes = rows.reduce((sum, row) => sum + row!.attempts, 0);
          expect(codes).toBeLessThanOrEqual(BUDGET.code_failures);
          expect(rows.length).toBeLessThanOrEqual(BUDGET.code_mails_per_hour);

          // Second factors: the failures the audit trail records for the account (its preparation has none); a wrong
          // password is recorded against the account too (step pwd), and was counted above.
          const recorded = await idp.store.audit.list({ user: person.uuid, action: 'sign_in.failed' }, { offset: 0, limit: 100 });
          const failed = { total: recorded.rows.filter((entry) => entry.details.step !== 'pwd').length };
          expect(failed.total).toBeLessThanOrEqual(BUDGET.second_factor_failures);
          totals.passwords += passwords;
          totals.codes += codes;
          totals.secondFactors += failed.total;
          totals.mails += rows.length;
        }
      }),
      { numRuns: NUM_RUNS },
    );
    // The runs did reach every budget's flow (the property is not true merely because nothing was checked).
    expect(Math.min(totals.passwords, totals.codes, totals.secondFactors, totals.mails)).toBeGreaterThan(0);
  });
});
