/** applications[] in the configuration: defaults and the one-line errors of bad entries. */
import { ConfigError } from '../../src/settings/validate.js';
import { testSettings } from '../helpers/settings.js';

const app = (extra: Record<string, unknown> = {}) => ({
  slug: 'wiki',
  name: 'Wiki',
  client_id: 'wiki-client',
  client_secret: 'a-long-enough-secret-value',
  redirect_uris: ['https://wiki.example.com/cb'],
  ...extra,
});

const load = (applications: unknown[]) => testSettings({ applications });
const fails = (applications: unknown[]) => expect(load(applications)).rejects.toThrow(ConfigError);

describe('applications configuration', () => {
  test('defaults: no applications; per-app scopes, require_mfa, tokens and logout URIs', async () => {
    expect((await testSettings()).applications).toEqual([]);
    const [wiki] = (await load([app()])).applications;
    expect(wiki).toMatchObject({ scopes: ['openid', 'profile', 'email'], require_mfa: false, tokens: {}, post_logout_redirect_uris: [] });
    // The spec's algorithm unless the application says otherwise.
    expect(wiki!.id_token_signed_response_alg).toBe('RS256');
    expect((await load([app({ id_token_signed_response_alg: 'EdDSA' })])).applications[0]!.id_token_signed_response_alg).toBe('EdDSA');
  });

  test.each([
    ['a reserved slug', [app({ slug: 'token' })], 'config: applications[0].slug "token" is reserved'],
    ['a duplicate slug', [app(), app({ client_id: 'other' })], 'config: applications[1].slug "wiki" is used by another application'],
    [
      'a duplicate client_id',
      [app(), app({ slug: 'other' })],
      'config: applications[1].client_id "wiki-client" is used by another application',
    ],
    [
      'an http redirect URI off localhost',
      [app({ redirect_uris: ['http://wiki.example.com/cb'] })],
      'config: applications[0].redirect_uris[0] must be an absolute https URL',
    ],
    [
      'a relative redirect URI',
      [app({ redirect_uris: ['/cb'] })],
      'config: applications[0].redirect_uris[0] must be an absolute https URL',
    ],
    ['no secret', [app({ client_secret: undefined })], 'config: applications[0].client_secret is required'],
    [
      'a secret env var that is not set',
      [app({ client_secret: undefined, client_secret_env: 'IDP_TEST_UNSET_SECRET' })],
      'config: applications[0].client_secret_env names IDP_TEST_UNSET_SECRET',
    ],
    ['scopes without openid', [app({ scopes: ['profile'] })], 'config: applications[0].scopes must include openid (application "wiki")'],
    [
      'an http loopback backchannel URI without webhooks.allow_insecure_loopback',
      [app({ backchannel_logout_uri: 'http://127.0.0.1:8080/bc' })],
      'config: applications[0].backchannel_logout_uri must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)',
    ],
    [
      'an http backchannel URI off loopback',
      [app({ backchannel_logout_uri: 'http://wiki.example.com/bc' })],
      'config: applications[0].backchannel_logout_uri must be an https URL',
    ],
    [
      'a public app with a secret',
      [app({ client_type: 'public' })],
      'config: applications[0] is public (client_type: public) and must not have a client_secret',
    ],
    [
      'a public app with a secret from the environment',
      [app({ client_type: 'public', client_secret: undefined, client_secret_env: 'X' })],
      'config: applications[0] is public (client_type: public) and must not have a client_secret',
    ],
    [
      'a confidential app without a secret',
      [app({ client_type: 'confidential', client_secret: undefined })],
      'config: applications[0].client_secret is required',
    ],
    [
      'a private-use redirect on a confidential app',
      [app({ redirect_uris: ['com.example.wiki:/cb'] })],
      'config: applications[0].redirect_uris[0] uses a private-use scheme: only public applications (client_type: public) may',
    ],
    [
      'a private-use scheme without a dot',
      [app({ client_type: 'public', client_secret: undefined, redirect_uris: ['myapp:/cb'] })],
      'config: applications[0].redirect_uris[0] must be an absolute https URL',
    ],
    [
      'client_credentials on a public app',
      [app({ client_type: 'public', client_secret: undefined, grant_types: ['authorization_code', 'client_credentials'] })],
      'config: applications[0].grant_types: client_credentials needs a confidential application',
    ],
    ['an unknown grant type', [app({ grant_types: ['password'] })], 'config: applications[0].grant_types[0] must be one of'],
    [
      'the authorization_code grant without redirect URIs',
      [app({ redirect_uris: [] })],
      'config: applications[0].redirect_uris is required with the authorization_code grant',
    ],
    [
      'an api scope that is a built-in scope',
      [app({ api_scopes: ['email'] })],
      'config: applications[0].api_scopes[0] "email" is a built-in scope',
    ],
    [
      'an allowed origin with a path',
      [app({ allowed_origins: ['https://app.example.com/spa'] })],
      'config: applications[0].allowed_origins[0] must be an origin such as https://app.example.com',
    ],
    [
      'application_type native on a confidential app',
      [app({ application_type: 'native', redirect_uris: ['http://127.0.0.1/cb'] })],
      'config: applications[0].application_type native needs client_type: public',
    ],
    [
      'application_type web with a private-use redirect',
      [app({ client_type: 'public', client_secret: undefined, application_type: 'web', redirect_uris: ['com.example.app:/cb'] })],
      'config: applications[0].redirect_uris[0] uses a private-use scheme, which only a native application receives (application_type: web)',
    ],
    [
      'application_type native with an https loopback redirect',
      [app({ client_type: 'public', client_secret: undefined, application_type: 'native', redirect_uris: ['https://localhost/cb'] })],
      'config: applications[0].redirect_uris[0] uses https on a loopback host, which a native application may not',
    ],
    [
      'a native app (derived) with an http redirect on another loopback address',
      [app({ client_type: 'public', client_secret: undefined, redirect_uris: ['http://127.0.0.1/cb', 'http://127.0.0.2/cb'] })],
      'config: applications[0].redirect_uris[1] uses http on a host other than localhost, 127.0.0.1 or [::1], which a native application may not (application_type: native, derived from its redirect URIs)',
    ],
    [
      'a native app (derived) with a post-logout URI the engine refuses',
      [
        app({
          client_type: 'public',
          client_secret: undefined,
          redirect_uris: ['com.example.app:/cb'],
          post_logout_redirect_uris: ['https://127.0.0.1/bye'],
        }),
      ],
      'config: applications[0].post_logout_redirect_uris[0] uses https on a loopback host',
    ],
    [
      'an unknown application_type',
      [app({ application_type: 'spa' })],
      'config: applications[0].application_type must be one of web, native',
    ],
    [
      'offline_access as an api scope',
      [app({ api_scopes: ['offline_access'] })],
      'config: applications[0].api_scopes[0] "offline_access" is a built-in scope, granted with the refresh_token grant',
    ],
  ])('%s is refused with one line', async (_name, applications, message) => {
    const error = await load(applications).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.startsWith(message)).toBe(true);
    expect((error as Error).message).not.toContain('\n');
  });

  test.each(['HS256', 'none', 'es256', 'PS256'])('id_token_signed_response_alg %s is refused with one line naming the key', async (alg) => {
    const error = await load([app({ id_token_signed_response_alg: alg })]).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'config: applications[0].id_token_signed_response_alg must be one of RS256, ES256, EdDSA (application "wiki")',
    );
  });

  test('an http loopback backchannel URI is accepted when webhooks.allow_insecure_loopback is set, as the sender does', async () => {
    const settings = await testSettings({
      webhooks: { allow_insecure_loopback: true },
      applications: [app({ backchannel_logout_uri: 'http://127.0.0.1:8080/bc' })],
    });
    expect(settings.applications[0]!.backchannel_logout_uri).toBe('http://127.0.0.1:8080/bc');
  });

  test('public and machine clients: no secret for a public app, native redirects, no redirect URI for client credentials only', async () => {
    const [cli, reporter] = (
      await load([
        app({
          slug: 'cli',
          client_id: 'cli',
          client_type: 'public',
          client_secret: undefined,
          redirect_uris: ['http://127.0.0.1/cb', 'com.example.cli:/cb'],
        }),
        app({
          slug: 'reporter',
          client_id: 'reporter',
          grant_types: ['client_credentials'],
          redirect_uris: undefined,
          api_scopes: ['reports:read'],
        }),
      ])
    ).applications;
    expect(cli).toMatchObject({
      client_type: 'public',
      grant_types: ['authorization_code', 'refresh_token'],
      api_scopes: [],
      resource_server: false,
    });
    expect(cli!.client_secret).toBeUndefined();
    expect(reporter).toMatchObject({
      client_type: 'confidential',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      api_scopes: ['reports:read'],
    });
  });

  test('application_type: declared, or derived from the redirect URIs as RFC 8252 has it', async () => {
    const publicApp = (slug: string, extra: Record<string, unknown>) =>
      app({ slug, client_id: slug, client_type: 'public', client_secret: undefined, ...extra });
    const applications = (
      await load([
        app(),
        publicApp('cli', { redirect_uris: ['http://127.0.0.1/cb'] }),
        publicApp('mobile', { redirect_uris: ['com.example.app:/cb'] }),
        publicApp('spa', { redirect_uris: ['https://spa.example.com/cb', 'http://localhost:5173/cb'] }),
        publicApp('local-spa', { application_type: 'web', redirect_uris: ['http://127.0.0.1:5173/cb'] }),
        publicApp('claimed', { application_type: 'native', redirect_uris: ['https://app.example.com/cb'] }),
      ])
    ).applications;
    expect(applications.map((entry) => [entry.slug, entry.application_type])).toEqual([
      ['wiki', 'web'],
      ['cli', 'native'],
      ['mobile', 'native'],
      ['spa', 'web'],
      ['local-spa', 'web'],
      ['claimed', 'native'],
    ]);
  });

  test('schema errors name the key', async () => {
    await expect(load([app({ slug: 'Bad Slug' })])).rejects.toThrow(/^config: applications\[0\]\.slug must be 1 to 63 lowercase letters/);
    await expect(load([app({ tokens: { access_token_ttl: 0 } })])).rejects.toThrow(
      'config: applications[0].tokens.access_token_ttl must be an integer ≥ 1 (application "wiki")',
    );
    // The second entry is named by its slug, so an operator finds it in a long list.
    await expect(load([app(), app({ slug: 'crm', client_id: 'crm', redirect_uris: ['/cb'] })])).rejects.toThrow(
      'config: applications[1].redirect_uris[0] must be an absolute https URL',
    );
    await expect(load([app(), app({ slug: 'crm', client_id: 'crm', redirect_uris: ['/cb'] })])).rejects.toThrow(/\(application "crm"\)$/);
    await expect(load([app({ scopes: ['openid', 'admin'] })])).rejects.toThrow(/^config: applications\[0\]\.scopes\[1\] must be one of/);
    await fails([app({ unknown: 1 })]);
  });

  test('http redirect URIs are fine on localhost and 127.0.0.1; the secret may come from the environment', async () => {
    process.env.IDP_TEST_WIKI_SECRET = 'secret-from-the-environment';
    try {
      const [wiki] = (
        await load([
          app({
            redirect_uris: ['http://localhost:3000/cb', 'http://127.0.0.1:8080/cb'],
            client_secret: undefined,
            client_secret_env: 'IDP_TEST_WIKI_SECRET',
          }),
        ])
      ).applications;
      expect(wiki!.client_secret).toBe('secret-from-the-environment');
    } finally {
      delete process.env.IDP_TEST_WIKI_SECRET;
    }
  });
});
