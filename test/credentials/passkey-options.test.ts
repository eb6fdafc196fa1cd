/**
 * Passkey options (each one a challenge row in the store) are limited per client IP and per sign-in, and a
 * sign-in keeps only its newest few challenges: the options a script asks for cannot fill the database. HTTP
 * only (no authenticator is needed to ask for options), on every store.
 */
import { engines } from '../helpers/database.js';
import type { HttpResponse } from '../helpers/http-client.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { hiddenField, visit } from './visitor.js';

let lastIp = 0;
const newIp = () => `203.0.${Math.floor(++lastIp / 250)}.${(lastIp % 250) + 1}`;

describe.each(engines)('passkey options (%s)', (engine) => {
  let idp: CredentialsServer;

  beforeAll(async () => {
    idp = await startCredentialsServer(engine, 'http://127.0.0.1:1/callback', [{ slug: 'wiki' }, { slug: 'vault', require_mfa: true }], {
      server: { trust_proxy: true, proxy_hops: 1 },
    });
  });
  afterAll(async () => idp?.close());

  /** The challenges stored for `purpose` now. */
  const rowsOf = async (purpose: string) =>
    Number(
      (
        await idp.db.database.db
          .selectFrom('webauthn_challenges')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('purpose', '=', purpose)
          .executeTakeFirstOrThrow()
      ).count,
    );
  const statuses = (answers: HttpResponse[]) => answers.map((answer) => answer.status);

  test('sixty a minute from one address, across sign-ins; then 429 with Retry-After and a message the page shows', async () => {
    const ip = newIp();
    const answers: HttpResponse[] = [];
    const purposes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const at = await visit(idp, idp.apps.wiki!, ip);
      purposes.push(`sign-in:${at.uid}`);
      for (let j = 0; j < 13; j++) answers.push(await at.post('passkey/options'));
    }
    expect(statuses(answers)).toEqual([...Array(60).fill(200), ...Array(5).fill(429)]);
    expect(JSON.parse(answers[0]!.text).challenge).toEqual(expect.any(String));
    const refused = answers.at(-1)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(refused.text)).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many passkey requests\. Try again in \d+ seconds?, or continue another way\.$/),
    });
    // Each sign-in keeps its newest five.
    for (const purpose of purposes) expect(await rowsOf(purpose)).toBeLessThanOrEqual(5);
    // Another address is not held up.
    expect((await (await visit(idp, idp.apps.wiki!, newIp())).post('passkey/options')).status).toBe(200);
  });

  test('twenty per sign-in; the sign-in holds five challenges, the newest', async () => {
    const at = await visit(idp, idp.apps.wiki!, newIp());
    const answers: HttpResponse[] = [];
    for (let i = 0; i < 25; i++) answers.push(await at.post('passkey/options'));
    expect(statuses(answers)).toEqual([...Array(20).fill(200), ...Array(5).fill(429)]);
    expect(await rowsOf(`sign-in:${at.uid}`)).toBe(5);
    const newest = JSON.parse(answers[19]!.text).challenge as string;
    const kept = await idp.db.database.db
      .selectFrom('webauthn_challenges')
      .select('challenge')
      .where('purpose', '=', `sign-in:${at.uid}`)
      .execute();
    expect(kept.map((row) => row.challenge)).toContain(newest);
  });

  test('the enrolment options at sign-in are limited the same way', async () => {
    const user = await idp.user();
    const at = await visit(idp, idp.apps.vault!, newIp());
    const enrol = await at.post('email', { email: user.email, password: PASSWORD });
    const ticket = hiddenField(enrol, 'ticket');
    expect(ticket).not.toBe('');
    const answers: HttpResponse[] = [];
    for (let i = 0; i < 25; i++) answers.push(await at.post('passkey/enrol-options', { ticket }));
    expect(statuses(answers)).toEqual([...Array(20).fill(200), ...Array(5).fill(429)]);
    expect(await rowsOf(`enrol:${at.uid}`)).toBe(5);
  });
});
