/** `idp audit list` as a real process on a shared PostgreSQL database: filters, a header row, JSON, and one-line errors. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { lastLine, runIdp } from '../helpers/cli.js';
import { createUser } from '../../src/domain/users.js';
import { createGroup } from '../../src/domain/groups.js';
import { AUDIT_ACTIONS } from '../../src/domain/audit-actions.js';
import { readFileSync } from 'node:fs';
import { ROOT } from '../helpers/paths.js';

const withPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

withPostgres('idp audit list (PostgreSQL: the CLI and the test share the database)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await openTestDatabase('postgres');
    env = {
      DATABASE_URL: db.url!,
      IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-audit-')),
      NODE_CONFIG: JSON.stringify({ secrets: { key: 'k'.repeat(64) } }),
    };
  });
  afterAll(() => db?.close());

  test('lists newest first with a header, filters by action and user, prints JSON', async () => {
    const ada = await createUser(db.store, { username: 'ada', email: 'ada@example.com', name: 'Ada' });
    await createUser(db.store, { username: 'bob', email: 'bob@example.com', name: 'Bob' });
    await createGroup(db.store, { name: 'staff' });

    const listed = await runIdp(['audit', 'list', '--action', 'user.created'], env);
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((row) => row.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['AT', 'ACTION', 'ACTOR', 'USER', 'APP', 'IP', 'DETAILS']);
    expect(rows.slice(1).map((row) => row[1])).toEqual(['user.created', 'user.created']);
    expect(rows[2]![3]).toBe(ada.uuid); // newest first: bob, then ada
    expect(rows[1]![2]).toBe('system'); // no request, no token: the system acted

    const json = JSON.parse((await runIdp(['audit', 'list', '--user', ada.uuid, '--json'], env)).stdout);
    expect(json).toEqual([expect.objectContaining({ action: 'user.created', user: ada.uuid, actor: { type: 'system', id: null } })]);
    expect(JSON.parse((await runIdp(['audit', 'list', '--since', '2999-01-01T00:00:00Z', '--json'], env)).stdout)).toEqual([]);

    const bad = await runIdp(['audit', 'list', '--since', 'yesterday'], env);
    expect(bad.code).toBe(1);
    expect(lastLine(bad.stderr)).toBe('error: --since must be a date and time, e.g. 2026-11-23T10:00:00Z');
  }, 90_000);
});

test('an unknown --action is refused, naming the actions there are (it would find nothing, which reads as "never happened")', async () => {
  const result = await runIdp(['audit', 'list', '--action', 'sign_in.fail']);
  expect(result.code).toBe(1);
  expect(lastLine(result.stderr)).toBe(
    `error: --action "sign_in.fail" is not an action the audit trail records; one of ${AUDIT_ACTIONS.join(', ')}`,
  );
}, 30_000);

test('every action the trail records is described in docs/api.md', () => {
  const table = readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
  expect(AUDIT_ACTIONS.filter((action) => !table.includes(`\`${action}\``))).toEqual([]);
});
