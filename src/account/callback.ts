/**
 * GET /account/callback: the end of the account client's sign-in. The code is redeemed in-process through the
 * engine's own model (the service is its own token endpoint's only caller for this client): it must be this
 * client's, for this redirect URI, unexpired and unused, and match the PKCE verifier. Its session and user
 * become the account page's.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { PageError } from '../errors.js';
import { messagesOf } from '../i18n/choose-locale.js';
import { flowCookie, type AccountFlow } from './sign-in.js';
import type { Portal } from './portal.js';
import type { AccountDeps } from './state.js';
import { secretsFrom } from '../domain/secrets.js';

interface StoredCode {
  clientId: string;
  redirectUri: string;
  accountId: string;
  sessionUid: string;
  codeChallenge?: string;
  consumed?: unknown;
  consume(): Promise<void>;
}

/**
 * The error page of a sign-in that did not come back right. Its words are catalogue keys, translated on the page;
 * the admin console's (not translated) gets them in English.
 */
const again = (ctx: Context, portal: Portal, message: string, cause?: unknown) => {
  const words = portal.translated ? (key: string) => key : messagesOf(ctx).translator('en').t;
  return new PageError(
    400,
    {
      title: portal.title,
      heading: words('account.callback.heading'),
      message: words(message),
      link: { href: `${portal.path}/`, label: words('account.sign_in_again') },
    },
    cause,
  );
};

export function accountCallback(deps: AccountDeps) {
  const secrets = secretsFrom(deps.settings.secrets.key);
  const { portal } = deps;
  const redirectUri = `${deps.settings.issuer.base_url.replace(/\/$/, '')}${portal.path}/callback`;
  return async function accountCallback(ctx: Context) {
    const flow = deps.unseal<AccountFlow>(`${portal.cookie}-flow`, ctx.cookies.get(flowCookie(portal)));
    ctx.cookies.set(flowCookie(portal), null, { path: portal.path, overwrite: true });
    if (!flow || !secrets.equal(ctx.query.state, flow.state)) throw again(ctx, portal, 'account.callback.other_tab');
    if (ctx.query.error)
      throw again(ctx, portal, ctx.query.error === 'access_denied' ? 'account.callback.cancelled' : 'account.callback.incomplete');

    const provider = deps.provider() as unknown as { AuthorizationCode: { find(value: string): Promise<StoredCode | undefined> } };
    const value = typeof ctx.query.code === 'string' ? ctx.query.code : '';
    const code = value ? await provider.AuthorizationCode.find(value) : undefined;
    const challenge = createHash('sha256').update(flow.verifier).digest('base64url');
    if (
      !code ||
      code.consumed ||
      code.clientId !== portal.clientId ||
      code.redirectUri !== redirectUri ||
      !secrets.equal(challenge, code.codeChallenge ?? '')
    ) {
      throw again(ctx, portal, 'account.callback.used_or_expired');
    }
    try {
      await code.consume(); // a second redemption of the same code fails here (compare-and-set in the store)
    } catch (error) {
      throw again(ctx, portal, 'account.callback.used', error);
    }
    deps.cookies.set(ctx, code.sessionUid, code.accountId);
    ctx.status = 303;
    ctx.redirect(flow.returnTo);
  };
}
