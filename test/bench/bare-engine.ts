/**
 * The bare engine for `npm run bench`: panva's oidc-provider alone, its in-memory adapter (unbounded), the protocol settings
 * the service gives each application (code + PKCE S256, the same claims and lifetimes, refresh rotation, client
 * credentials, introspection, revocation), first-party grants without consent, and the same signing keys: RSA 2048
 * (the `bench` client's RS256), P-256 and Ed25519 (a client each signing with ES256 and EdDSA). The floor the
 * service is compared with, on the same algorithm. Runs as its own process; prints READY with its fixture.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, type KeyPairKeyObjectResult } from 'node:crypto';
import Provider, { type Adapter, type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider';
import type { SigningAlg } from '../../src/settings/signing-algorithms.js';
import { algClientId, announce, OTHER_ALGS, SCOPE } from './fixture.js';
import { signedInFixture, type SignIn } from './signed-in-fixture.js';

const ACCOUNT = '6f1c7a4e-8d55-4c61-9a0e-2f0c1d2b3a4f';
const claims = {
  sub: ACCOUNT,
  name: 'Ada Lovelace',
  given_name: 'Ada',
  family_name: 'Lovelace',
  email: 'ada@example.com',
  email_verified: true,
  picture: 'https://id.example.com/a.svg',
};

// The engine's own in-memory adapter, over its own LRU store made large enough that nothing is evicted during a
// run (its default keeps 1,000 entries, and the seeded sessions and tokens would vanish mid-benchmark).
type AdapterClass = new (model: string, store: unknown) => Adapter;
const { default: MemoryAdapter } = (await import('oidc-provider/lib/adapters/memory_adapter.js' as string)) as { default: AdapterClass };
const { default: LRU } = (await import('oidc-provider/lib/helpers/lru.js' as string)) as {
  default: new (options: { maxSize: number }) => unknown;
};
const storage = new LRU({ maxSize: 10_000_000 });

// One key per algorithm, as the service holds them once applications ask for ES256 and EdDSA.
const signingKey = (alg: string, pair: KeyPairKeyObjectResult) => ({
  ...pair.privateKey.export({ format: 'jwk' }),
  kid: `bench-${alg}`,
  alg,
  use: 'sig',
});
const keys = [
  signingKey('RS256', generateKeyPairSync('rsa', { modulusLength: 2048 })),
  signingKey('ES256', generateKeyPairSync('ec', { namedCurve: 'P-256' })),
  signingKey('EdDSA', generateKeyPairSync('ed25519')),
];
const cookieKeys = [randomBytes(32).toString('base64url')];
const server = http.createServer();
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const redirectUri = 'http://127.0.0.1:1/cb';

const client = { id: 'bench', secret: 'bench-secret-0123456789', redirectUri };
const benchClient = (clientId: string, alg: SigningAlg): ClientMetadata => ({
  client_id: clientId,
  client_secret: client.secret,
  redirect_uris: [redirectUri],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: SCOPE,
  id_token_signed_response_alg: alg,
});

const provider = new Provider(url, {
  clients: [
    benchClient('bench', 'RS256'),
    ...OTHER_ALGS.map((alg) => benchClient(algClientId(alg), alg)),
    {
      client_id: 'machine',
      client_secret: 'machine-secret-0123456789',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'reports:read',
    },
  ],
  adapter: (model: string) => new MemoryAdapter(model, storage),
  jwks: { keys: keys as never[] },
  cookies: { keys: cookieKeys },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => claims }),
  scopes: ['openid', 'profile', 'email', 'reports:read'],
  claims: {
    auth_time: null,
    amr: null,
    sid: null,
    openid: ['sub'],
    profile: ['name', 'given_name', 'family_name', 'picture'],
    email: ['email', 'email_verified'],
  },
  conformIdTokenClaims: false,
  responseTypes: ['code'],
  pkce: { required: () => true },
  clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
  enabledJWA: { idTokenSigningAlgValues: ['RS256', 'ES256', 'EdDSA'] },
  features: {
    devInteractions: { enabled: false },
    userinfo: { enabled: true },
    clientCredentials: { enabled: true },
    revocation: { enabled: true },
    introspection: { enabled: true },
    rpInitiatedLogout: { enabled: true },
    backchannelLogout: { enabled: true },
    dPoP: { enabled: true },
  },
  clientBasedCORS: () => true,
  async loadExistingGrant(ctx: KoaContextWithOIDC) {
    const { client, session } = ctx.oidc;
    const grantId = session!.grantIdFor(client!.clientId);
    const grant =
      (grantId && (await ctx.oidc.provider.Grant.find(grantId))) ||
      new ctx.oidc.provider.Grant({ clientId: client!.clientId, accountId: session!.accountId });
    grant.addOIDCScope(SCOPE);
    await grant.save();
    return grant;
  },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  expiresWithSession: async () => false,
  ttl: {
    AuthorizationCode: 60,
    AccessToken: 3600, // the fixture's tokens are introspected minutes after the sign-ins (as the service's bench config)
    ClientCredentials: 300,
    IdToken: 300,
    RefreshToken: 30 * 86400,
    Grant: 30 * 86400,
    Interaction: 3600,
    Session: 14 * 86400,
  },
});
const engine = provider.callback();
// The sign-in: the engine's interaction page signs the person in at once (the service checks a password there).
server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
  if (!req.url?.startsWith('/interaction/')) return engine(req, res);
  provider
    .interactionFinished(req, res, { login: { accountId: ACCOUNT, amr: ['pwd'] } }, { mergeWithLastSubmission: false })
    .catch((error: Error) => res.writeHead(400).end(error.message));
});

const paths = {
  discovery: '/.well-known/openid-configuration',
  jwks: '/jwks',
  authorize: '/auth',
  token: '/token',
  userinfo: '/me',
  introspection: '/token/introspection',
};
const signIn: SignIn = (jar, interactionUrl) => jar.get(interactionUrl);
announce({
  name: 'bare engine',
  url,
  pid: process.pid,
  paths,
  client,
  machine: { id: 'machine', secret: 'machine-secret-0123456789', scope: 'reports:read' },
  ...(await signedInFixture({ url, paths }, client, () => signIn)),
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
