/**
 * GET /account/: the account page. Profile, password, two-step verification (TOTP and recovery codes),
 * passkeys, the upstream identity providers linked, and the applications the person is signed in to. A change posts to its own path and comes back here
 * with a notice, or re-renders this page with the error beside the form it belongs to.
 */
import type { AccountContext } from './account-session.js';
import { isRecent } from './account-session.js';
import type { AccountDeps } from './state.js';
import { renderPage } from '../pages/render-page.js';
import { hasPassword } from '../domain/passwords.js';
import { hasTotp } from '../domain/totp.js';
import { ACCOUNT_CLIENT_ID } from '../domain/account-client.js';
import { pendingEmailChange } from '../domain/email-change.js';
import { listSessions } from '../domain/logout.js';
import { describeBrowser } from './describe-browser.js';

/** Notices by key (the query names one; nothing from the URL is shown as text). */
export const NOTICES = {
  'password-changed': 'Your password was changed. Your other sessions were signed out.',
  'profile-saved': 'Your profile was saved.',
  'email-code-sent':
    'We sent a code to your new address. Enter it below to confirm the address; until then your e-mail address stays as it is.',
  'email-changed': 'Your e-mail address was changed.',
  'email-kept': 'Your e-mail address stays as it is.',
  'totp-removed': 'Two-step verification with an authenticator app was removed.',
  'passkey-added': 'Your passkey was added.',
  'passkey-renamed': 'Your passkey was renamed.',
  'passkey-removed': 'Your passkey was removed.',
  'app-signed-out': 'You were signed out of the application.',
  'device-signed-out': 'That browser was signed out; its applications were told.',
  'source-unlinked': 'The link was removed. Signing in there no longer signs you in here until you link it again.',
  confirmed: 'Thank you: you can make changes for the next ten minutes.',
} as const;
export type NoticeKey = keyof typeof NOTICES;

/** An error shown beside one section's form. */
export interface SectionError {
  section: 'profile' | 'password' | 'totp' | 'passkeys' | 'sources' | 'devices' | 'apps';
  message: string;
}

export async function renderAccount(
  ctx: AccountContext,
  deps: AccountDeps,
  shown: { notice?: string; error?: SectionError; status?: number } = {},
) {
  const { user, csrf } = ctx.state.account;
  const [password, totp, codesLeft, passkeys, clients, newEmail, links, sessions] = await Promise.all([
    hasPassword(deps.store, user.id),
    hasTotp(deps.store, user.id),
    deps.store.mfa.recoveryCodesLeft(user.id),
    deps.store.passkeys.listForUser(user.id),
    deps.store.oidcPayloads.grantedClients(user.uuid, new Date()),
    deps.settings.account.profile_edits ? pendingEmailChange(deps.store, user) : undefined,
    deps.store.sourceLinks.listForUser(user.id),
    listSessions(deps.store, user.uuid),
  ]);
  const day = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : 'never');
  const sourceName = (slug: string) => deps.settings.sources.find((source) => source.slug === slug)?.name ?? slug;
  // The same rule as the unlink itself (domain/source-links.ts): another way to sign in must remain.
  const canUnlink = links.length > 1 || password || passkeys.length > 0;
  const apps = clients.filter((id) => id !== ACCOUNT_CLIENT_ID).map((clientId) => ({ clientId, name: deps.appName(clientId) ?? clientId }));
  renderPage(
    ctx,
    'account',
    {
      title: 'Your account',
      wide: true,
      scripts: true,
      csrf,
      user,
      profileEdits: deps.settings.account.profile_edits,
      newEmail,
      minLength: deps.settings.passwords.min_length,
      password,
      totp,
      codesLeft,
      apps,
      sources: links.map((link) => ({
        slug: link.source,
        name: sourceName(link.source),
        added: day(link.created_at),
        used: day(link.last_used_at),
      })),
      canUnlink,
      devices: sessions.map((session) => ({
        id: session.id,
        current: session.uid === ctx.state.account.sid,
        what: describeBrowser(session.userAgent),
        first: session.firstSeen ? session.firstSeen.toISOString().slice(0, 16).replace('T', ' ') : 'unknown',
        last: (session.lastSeen ?? session.signedInAt)?.toISOString().slice(0, 16).replace('T', ' ') ?? 'unknown',
        apps: session.clients.filter((id) => id !== ACCOUNT_CLIENT_ID).map((id) => deps.appName(id) ?? id),
      })),
      passkeys: passkeys.map((passkey) => ({
        ...passkey,
        kind: passkey.device_type === 'multiDevice' ? 'Synced passkey' : 'Device-bound passkey',
        added: passkey.created_at.toISOString().slice(0, 10),
        used: passkey.last_used_at ? passkey.last_used_at.toISOString().slice(0, 10) : 'never',
      })),
      passkeyForm: { action: '/account/passkeys/add', options: '/account/passkeys/options' },
      recent: isRecent(ctx.state.account),
      notice: shown.notice,
      error: shown.error,
    },
    shown.status ?? 200,
  );
}

export function showAccount(deps: AccountDeps) {
  return async function showAccount(ctx: AccountContext) {
    const key = String(ctx.query.notice ?? '');
    return renderAccount(ctx, deps, { notice: key in NOTICES ? NOTICES[key as NoticeKey] : undefined });
  };
}

/** After a change: back to the page with its notice (303, so a reload does not post again). */
export function backToAccount(ctx: AccountContext, notice: NoticeKey) {
  ctx.status = 303;
  ctx.redirect(`/account/?notice=${notice}`);
}
