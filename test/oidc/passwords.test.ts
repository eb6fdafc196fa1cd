/** Password hashing and POST /api/v3/core/users/{pk}/set_password/. */
import { inEnglish } from '../../src/i18n/messages.js';
import bcrypt from 'bcrypt';
import { hashPassword, policyProblems, verifyPassword } from '../../src/domain/passwords.js';
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const policy = { bcrypt_cost: 4, min_length: 8, max_length: 128 };

describe('password hashing', () => {
  test('bcrypt with the configured cost', async () => {
    const hash = await hashPassword('a fine password', 4);
    expect(hash).toMatch(/^\$2b\$04\$/);
    expect(await verifyPassword('a fine password', hash)).toBe(true);
    expect(await verifyPassword('a fine passwore', hash)).toBe(false);
  });

  test('passwords over 72 bytes are pre-hashed, never truncated: a change after byte 72 matters', async () => {
    const long = 'x'.repeat(80);
    const hash = await hashPassword(long, 4);
    expect(await verifyPassword(long, hash)).toBe(true);
    expect(await verifyPassword('x'.repeat(79) + 'y', hash)).toBe(false);
    expect(await bcrypt.compare(long, hash)).toBe(false); // not the raw (truncated) input
    const multibyte = 'é'.repeat(40); // 80 bytes in 40 characters
    expect(await verifyPassword(multibyte, await hashPassword(multibyte, 4))).toBe(true);
  });

  test('policy: length limits and not the e-mail', () => {
    expect(policyProblems('short', 'a@example.com', policy).map(inEnglish)).toEqual(['Ensure this field has at least 8 characters.']);
    expect(policyProblems('y'.repeat(129), 'a@example.com', policy).map(inEnglish)).toEqual([
      'Ensure this field has no more than 128 characters.',
    ]);
    expect(policyProblems('Ada@Example.com', 'ada@example.com', policy).map(inEnglish)).toEqual([
      'The password must not be the e-mail address.',
    ]);
    expect(policyProblems('a long enough one', 'ada@example.com', policy)).toEqual([]);
  });
});

describe.each(engines)('POST /users/{pk}/set_password/ (%s)', (engine) => {
  let server: TestServer;
  let pk: number;
  beforeAll(async () => {
    server = await startTestServer(engine);
    const created = await server.api('/api/v3/core/users/', {
      json: { username: 'pw@example.com', email: 'pw@example.com', name: 'Pw User' },
    });
    pk = created.body.pk;
  });
  afterAll(async () => server?.close());

  const setPassword = (password: unknown, token?: string) =>
    server.api(`/api/v3/core/users/${pk}/set_password/`, { json: { password }, token });

  test('204 and the stored hash verifies', async () => {
    const response = await setPassword('a brand new password');
    expect(response.status).toBe(204);
    const hash = await server.db.store.credentials.passwordHash(pk);
    expect(await verifyPassword('a brand new password', hash!)).toBe(true);
  });

  test('policy errors: 400 {"password": [...]}', async () => {
    expect(await setPassword('short')).toMatchObject({ status: 400, body: { password: ['Ensure this field has at least 8 characters.'] } });
    expect(await setPassword('pw@example.com')).toMatchObject({
      status: 400,
      body: { password: ['The password must not be the e-mail address.'] },
    });
    expect(await setPassword(12345678)).toMatchObject({ status: 400, body: { password: expect.any(Array) } });
    expect((await server.api(`/api/v3/core/users/${pk}/set_password/`, { json: {} })).body).toEqual({
      password: ['This field is required.'],
    });
  });

  test('unknown user 404; needs users:write', async () => {
    expect((await server.api('/api/v3/core/users/999999/set_password/', { json: { password: 'a brand new password' } })).status).toBe(404);
    const readOnly = await server.token(['users:read']);
    expect((await setPassword('a brand new password', readOnly)).status).toBe(403);
  });
});
