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
import { browserOf } from './describe-browser.js';
import type { Message, Text } from '../i18n/messages.js';

/** Notices by the query's name for them (nothing from the URL is shown as text): their catalogue keys. */
export const NOTICES = {
  'password-changed': 'account.notice.password_changed',
  'profile-saved': 'account.notice.profile_saved',
  'email-code-sent': 'account.notice.email_code_sent',
  'email-changed': 'account.notice.email_changed',
  'email-kept': 'account.notice.email_kept',
  'totp-removed': 'account.notice.totp_removed',
  'passkey-added': 'account.notice.passkey_added',
  'passkey-renamed': 'account.notice.passkey_renamed',
  'passkey-removed': 'account.notice.passkey_removed',
  'app-signed-out': 'account.notice.app_signed_out',
  'device-signed-out': 'account.notice.device_signed_out',
  'source-unlinked': 'account.notice.source_unlinked',
  confirmed: 'account.notice.confirmed',
} as const;
export type NoticeKey = keyof typeof NOTICES;

/** An error shown beside one section's form: a catalogue key, or a Text with values. */
export interface SectionError {
  section: 'profile' | 'password' | 'totp' | 'passkeys' | 'sources' | 'devices' | 'apps';
  message: Message;
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
  const sourceName = (slug: string) => deps.settings.sources.find((source) => source.slug === slug)?.name ?? slug;
  // The same rule as the unlink itself (domain/source-links.ts): another way to sign in must remain.
  const canUnlink = links.length > 1 || password || passkeys.length > 0;
  const apps = clients.filter((id) => id !== ACCOUNT_CLIENT_ID).map((clientId) => ({ clientId, name: deps.appName(clientId) ?? clientId }));
  renderPage(
    ctx,
    'account',
    {
      title: 'account.title',
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
        // Dates: the view formats them in the reader's locale ('never' when absent).
        added: link.created_at,
        used: link.last_used_at,
      })),
      canUnlink,
      devices: sessions.map((session) => ({
        id: session.id,
        current: session.uid === ctx.state.account.sid,
        ...browserOf(session.userAgent),
        first: session.firstSeen ?? undefined,
        last: session.lastSeen ?? session.signedInAt ?? undefined,
        apps: session.clients.filter((id) => id !== ACCOUNT_CLIENT_ID).map((id) => deps.appName(id) ?? id),
      })),
      passkeys: passkeys.map((passkey) => ({
        ...passkey,
        kind: passkey.device_type === 'multiDevice' ? 'account.passkeys.synced' : 'account.passkeys.device_bound',
        added: passkey.created_at,
        used: passkey.last_used_at,
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

/** The page again, with `message` beside its section; nothing changed. */
export const showError = (
  ctx: AccountContext,
  deps: AccountDeps,
  section: SectionError['section'],
  message: SectionError['message'],
  status = 400,
) => renderAccount(ctx, deps, { error: { section, message }, status });

/** After a change: back to the page with its notice (303, so a reload does not post again). */
export function backToAccount(ctx: AccountContext, notice: NoticeKey) {
  ctx.status = 303;
  ctx.redirect(`/account/?notice=${notice}`);
}
