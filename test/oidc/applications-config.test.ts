/** applications[] in the configuration: defaults and the one-line errors of bad entries. */
import { ConfigError } from '../../src/settings/validate.js';
import { testSettings } from '../helpers/settings.js';

const app = (extra: Record<string, unknown> = {}) => ({
  slug: 'wiki', name: 'Wiki', client_id: 'wiki-client', client_secret: 'a-long-enough-secret-value', redirect_uris: ['https://wiki.example.com/cb'], ...extra,
});

const load = (applications: unknown[]) => testSettings({ applications });
const fails = (applications: unknown[]) => expect(load(applications)).rejects.toThrow(ConfigError);

describe('applications configuration', () => {
  test('defaults: no applications; per-app scopes, require_mfa, tokens and logout URIs', async () => {
    expect((await testSettings()).applications).toEqual([]);
    const [wiki] = (await load([app()])).applications;
    expect(wiki).toMatchObject({ scopes: ['openid', 'profile', 'email'], require_mfa: false, tokens: {}, post_logout_redirect_uris: [] });
  });

  test.each([
    ['a reserved slug', [app({ slug: 'token' })], 'config: applications[0].slug "token" is reserved'],
    ['a duplicate slug', [app(), app({ client_id: 'other' })], 'config: applications[1].slug "wiki" is used by another application'],
    ['a duplicate client_id', [app(), app({ slug: 'other' })], 'config: applications[1].client_id "wiki-client" is used by another application'],
    ['an http redirect URI off localhost', [app({ redirect_uris: ['http://wiki.example.com/cb'] })], 'config: applications[0].redirect_uris[0] must be an absolute https URL'],
    ['a relative redirect URI', [app({ redirect_uris: ['/cb'] })], 'config: applications[0].redirect_uris[0] must be an absolute https URL'],
    ['no secret', [app({ client_secret: undefined })], 'config: applications[0].client_secret is required'],
    ['a secret env var that is not set', [app({ client_secret: undefined, client_secret_env: 'IDP_TEST_UNSET_SECRET' })], 'config: applications[0].client_secret_env names IDP_TEST_UNSET_SECRET'],
    ['scopes without openid', [app({ scopes: ['profile'] })], 'config: applications[0].scopes must include openid'],
    ['an http loopback backchannel URI without webhooks.allow_insecure_loopback', [app({ backchannel_logout_uri: 'http://127.0.0.1:8080/bc' })],
      'config: applications[0].backchannel_logout_uri must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)'],
    ['an http backchannel URI off loopback', [app({ backchannel_logout_uri: 'http://wiki.example.com/bc' })], 'config: applications[0].backchannel_logout_uri must be an https URL'],
  ])('%s is refused with one line', async (_name, applications, message) => {
    const error = await load(applications).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.startsWith(message)).toBe(true);
    expect((error as Error).message).not.toContain('\n');
  });

  test('an http loopback backchannel URI is accepted when webhooks.allow_insecure_loopback is set, as the sender does', async () => {
    const settings = await testSettings({ webhooks: { allow_insecure_loopback: true }, applications: [app({ backchannel_logout_uri: 'http://127.0.0.1:8080/bc' })] });
    expect(settings.applications[0]!.backchannel_logout_uri).toBe('http://127.0.0.1:8080/bc');
  });

  test('schema errors name the key', async () => {
    await expect(load([app({ slug: 'Bad Slug' })])).rejects.toThrow(/^config: applications\[0\]\.slug must match/);
    await expect(load([app({ tokens: { access_token_ttl: 0 } })])).rejects.toThrow('config: applications[0].tokens.access_token_ttl must be an integer ≥ 1');
    await expect(load([app({ scopes: ['openid', 'admin'] })])).rejects.toThrow(/^config: applications\[0\]\.scopes\[1\] must be one of/);
    await fails([app({ unknown: 1 })]);
  });

  test('http redirect URIs are fine on localhost and 127.0.0.1; the secret may come from the environment', async () => {
    process.env.IDP_TEST_WIKI_SECRET = 'secret-from-the-environment';
    try {
      const [wiki] = (await load([app({
        redirect_uris: ['http://localhost:3000/cb', 'http://127.0.0.1:8080/cb'], client_secret: undefined, client_secret_env: 'IDP_TEST_WIKI_SECRET',
      })])).applications;
      expect(wiki!.client_secret).toBe('secret-from-the-environment');
    } finally {
      delete process.env.IDP_TEST_WIKI_SECRET;
    }
  });
});
