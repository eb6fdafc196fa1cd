/**
 * An upstream OpenID Connect provider for the federation tests: a second instance of panva's oidc-provider (the
 * engine this service runs on) listening on its own loopback port, with clients registered for this service's
 * callback. Its sign-in page signs in whoever the test names next (`signInAs`), so the protocol around it is the
 * real one: discovery, PKCE, state, nonce, signed ID tokens, UserInfo. Its token endpoint can be told to hand out an
 * ID token with one claim changed (re-signed with its own key) or signed with a key it does not publish: an upstream
 * gone wrong, or an attacker's token.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, type CryptoKey } from 'jose';

export interface UpstreamAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  /** Released with the scope groups (in UserInfo). */
  groups?: string[];
  /** How the person signed in there: the ID token's amr. */
  amr?: string[];
}

export interface UpstreamClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

/** What the token endpoint does to the next ID token it issues. */
export type Tampering = { claims: Record<string, unknown> } | { foreignKey: true };

export interface UpstreamProvider {
  /** The issuer, http://localhost:{port} (another host than the service's 127.0.0.1, as a browser keeps their cookies apart). */
  issuer: string;
  /** The person the next sign-in at the upstream is, by subject. */
  signInAs(subject: string, account?: UpstreamAccount): void;
  /** The next ID token the token endpoint issues is changed so; one time. */
  tamperNextIdToken(how: Tampering): void;
  /** Registers the clients (the service's callback is known once it listens). */
  register(clients: UpstreamClient[]): void;
  /** Requests the upstream answered at its token endpoint. */
  tokenRequests: number;
  close(): Promise<void>;
}

/** The engine's rows in memory (its own quick-start adapter warns on every start; this one is the same, quietly). */
class MemoryAdapter {
  private static readonly rows = new Map<string, Record<string, unknown>>();
  constructor(private readonly model: string) {}
  private key = (id: string) => `${this.model}:${id}`;
  async upsert(id: string, payload: Record<string, unknown>) {
    MemoryAdapter.rows.set(this.key(id), payload);
  }
  async find(id: string) {
    return MemoryAdapter.rows.get(this.key(id));
  }
  async findByUid(uid: string) {
    return [...MemoryAdapter.rows.entries()].find(([key, row]) => key.startsWith(`${this.model}:`) && row.uid === uid)?.[1];
  }
  async findByUserCode() {
    return undefined;
  }
  async consume(id: string) {
    const row = MemoryAdapter.rows.get(this.key(id));
    if (row) row.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    MemoryAdapter.rows.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const [key, row] of MemoryAdapter.rows) if (row.grantId === grantId) MemoryAdapter.rows.delete(key);
  }
}

export async function startUpstreamProvider(): Promise<UpstreamProvider> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://localhost:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' };
  const foreign = (await generateKeyPair('RS256')).privateKey;

  const accounts = new Map<string, UpstreamAccount>();
  let next: string | undefined;
  let tampering: Tampering | undefined;
  let provider: Provider | undefined;
  const state = { tokenRequests: 0 };

  const resign = async (idToken: string, how: Tampering) => {
    const claims = { ...decodeJwt(idToken), ...('claims' in how ? how.claims : {}) };
    const key: CryptoKey = 'foreignKey' in how ? foreign : privateKey;
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'upstream-1' }).sign(key);
  };

  function build(clients: UpstreamClient[]): Provider {
    const upstream = new Provider(issuer, {
      adapter: MemoryAdapter,
      ttl: { AccessToken: 300, AuthorizationCode: 60, IdToken: 300, Interaction: 600, Session: 3600, Grant: 3600 },
      clients: clients.map((client) => ({ token_endpoint_auth_method: 'client_secret_basic', ...client })),
      jwks: { keys: [signingJwk as never] },
      cookies: { keys: ['upstream-cookie-key-0123456789abcdef'] },
      findAccount: (_ctx, sub) => ({
        accountId: sub,
        claims: () => {
          const { amr: _amr, ...claims } = accounts.get(sub) ?? {};
          return { sub, ...claims };
        },
      }),
      claims: { amr: null, acr: null, openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      pkce: { required: () => true },
      // Like Entra ID and Okta, every ID token says how the person signed in (amr, acr), asked for or not.
      loadExistingGrant: async (ctx: KoaContextWithOIDC): Promise<InstanceType<Provider['Grant']> | undefined> => {
        const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
        const oidc = ctx.oidc as unknown as { claims: { id_token?: Record<string, unknown> } };
        oidc.claims.id_token = { amr: null, acr: null, ...oidc.claims.id_token };
        return grantId ? upstream.Grant.find(grantId) : undefined;
      },
    });
    // The sign-in page: signs in the person named by signInAs, and grants what the client asked for.
    upstream.use(async (ctx, nextMiddleware) => {
      if (!ctx.path.startsWith('/interaction/')) return nextMiddleware();
      const details = await upstream.interactionDetails(ctx.req, ctx.res);
      if (details.prompt.name === 'login') {
        if (!next) throw new Error('the test named nobody to sign in at the upstream');
        const amr = accounts.get(next)?.amr;
        return upstream.interactionFinished(
          ctx.req,
          ctx.res,
          { login: { accountId: next, ...(amr ? { amr } : {}) } },
          { mergeWithLastSubmission: false },
        );
      }
      const grant = new upstream.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      return upstream.interactionFinished(
        ctx.req,
        ctx.res,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      );
    });
    upstream.use(async (ctx: KoaContextWithOIDC, nextMiddleware) => {
      await nextMiddleware();
      if (ctx.path !== '/token') return;
      state.tokenRequests += 1;
      const body = ctx.body as { id_token?: string } | undefined;
      if (tampering && body?.id_token) {
        body.id_token = await resign(body.id_token, tampering);
        tampering = undefined;
      }
    });
    return upstream;
  }

  server.on('request', (req, res) => {
    if (!provider) return res.writeHead(503).end();
    return provider.callback()(req, res);
  });

  return {
    issuer,
    signInAs(subject, account) {
      next = subject;
      if (account) accounts.set(subject, account);
    },
    tamperNextIdToken(how) {
      tampering = how;
    },
    register(clients) {
      provider = build(clients);
    },
    get tokenRequests() {
      return state.tokenRequests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
