/** `idp keys rotate|list` and `idp serve` with an application, as real child processes. */
import { createPostgresDatabase } from '../helpers/database.js';
import { runIdp, startServe } from '../helpers/cli.js';
import { migratedDataDir } from '../helpers/settings.js';

let env: Record<string, string>;
let drop = async () => {};
beforeAll(async () => {
  env = { IDP_DATA_DIR: migratedDataDir('idp-oidc-cli-') };
  if (process.env.TEST_DATABASE_URL) {
    const pg = await createPostgresDatabase();
    env.DATABASE_URL = pg.url;
    drop = pg.drop;
  }
});
afterAll(() => drop());

const application = {
  slug: 'wiki',
  name: 'Wiki',
  client_id: 'wiki-client',
  client_secret_env: 'WIKI_CLIENT_SECRET',
  redirect_uris: ['http://localhost:3000/cb'],
  access_group: 'wiki-users',
};

test('serve publishes each application: discovery with the shared endpoints and a JWKS; keys rotate adds a key', async () => {
  const serveEnv = {
    ...env,
    BASE_URL: 'https://id.example.com',
    NODE_CONFIG: JSON.stringify({ applications: [application] }),
    WIKI_CLIENT_SECRET: 'from-the-environment-123',
  };
  let server = await startServe(serveEnv);
  let firstKid: string;
  try {
    const doc = await (await fetch(`${server.url}/application/o/wiki/.well-known/openid-configuration`)).json();
    expect(doc.issuer).toBe('https://id.example.com/application/o/wiki/');
    expect(doc.token_endpoint).toBe('https://id.example.com/application/o/token/');
    const jwks = await (await fetch(`${server.url}/application/o/wiki/jwks/`)).json();
    expect(jwks.keys).toHaveLength(1);
    firstKid = jwks.keys[0].kid;
  } finally {
    await server.stop();
  }

  const rotated = await runIdp(['keys', 'rotate'], env);
  expect(rotated.code).toBe(0);
  // Only RS256 is in use (no application asks for another algorithm): one new key.
  expect(rotated.stdout).toMatch(/^new active RS256 signing key \S+\n$/);
  const kid = /new active RS256 signing key (\S+)/.exec(rotated.stdout)![1]!;
  const listed = await runIdp(['keys', 'list'], env);
  expect(listed.stdout).toMatch(new RegExp(`${kid}\\s+RS256\\s+active`));
  expect(listed.stdout).toMatch(new RegExp(`${firstKid}\\s+RS256\\s+retired`));

  server = await startServe(serveEnv);
  try {
    const jwks = await (await fetch(`${server.url}/application/o/wiki/jwks/`)).json();
    expect(jwks.keys.map((key: { kid: string }) => key.kid)).toEqual([kid, firstKid]);
  } finally {
    await server.stop();
  }
}, 120_000);

test('serve refuses a bad application with one line', async () => {
  const result = await runIdp(['serve', '--port', '0'], {
    ...env,
    NODE_CONFIG: JSON.stringify({ applications: [{ ...application, slug: 'token' }] }),
    WIKI_CLIENT_SECRET: 'from-the-environment-123', // its only problem is the slug (every problem is reported)
  });
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split('\n').pop()).toBe(
    'config: applications[0].slug "token" is reserved (authorize, token, userinfo, introspect, revoke, device, account, admin)',
  );
}, 60_000);
