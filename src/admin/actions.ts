/**
 * What an administrator does for a person, each through the domain function the provisioning API calls (so the
 * events, the audit entries — the administrator as actor — the end of sessions and the backchannel logouts are the
 * API's): deactivate, reactivate, remove the second factors, sign out everywhere, make a recovery link. Each asks
 * for a confirmation page first (GET …/confirm/{action}); its form posts the action with the session's CSRF token.
 */
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import { renderConfirmation, notFound } from './frame.js';
import { updateUser } from '../domain/users.js';
import { changeCredentials } from '../domain/credential-changes.js';
import { createRecoveryLink } from '../domain/password-setup.js';
import { signOutEverywhere } from '../domain/logout.js';
import { audit } from '../domain/audit.js';
import type { UserRow } from '../store/contract.js';
import { showUser, userOfPath } from './pages.js';

type Context = AccountContext & { params: Record<string, string> };

interface Action {
  /** The confirmation's question and button. */
  question: (user: UserRow) => string;
  button: string;
  explain: string;
  run(deps: AccountDeps, user: UserRow, ctx: Context): Promise<string | void>;
}

const ACTIONS: Record<string, Action> = {
  deactivate: {
    question: (user) => `Deactivate ${user.name}?`,
    button: 'Deactivate',
    explain:
      'They can no longer sign in; every session, grant and token ends and the applications are told. You can reactivate them later.',
    async run(deps, user) {
      await updateUser(deps.store, user.id, { is_active: false });
      return 'deactivated';
    },
  },
  reactivate: {
    question: (user) => `Reactivate ${user.name}?`,
    button: 'Reactivate',
    explain: 'They can sign in again, with the credentials they had.',
    async run(deps, user) {
      await updateUser(deps.store, user.id, { is_active: true });
      return 'reactivated';
    },
  },
  'reset-second-factors': {
    question: (user) => `Remove the second factors of ${user.name}?`,
    button: 'Remove second factors',
    explain:
      'Their authenticator app, recovery codes and passkeys are removed (a lost phone), their sessions end and they are told by e-mail. Where a second factor is required, they enrol a new one at their next sign-in.',
    async run(deps, user) {
      await changeCredentials(deps.store, deps.sendMail, {
        userId: user.id,
        change: { removeSecondFactors: true },
        by: { kind: 'administrator' },
      });
      return 'second-factors-reset';
    },
  },
  'end-sessions': {
    question: (user) => `Sign ${user.name} out everywhere?`,
    button: 'Sign out everywhere',
    explain: 'Every browser session, grant and token of theirs ends and the applications are told. Their credentials stay.',
    async run(deps, user) {
      await deps.store.transaction(async (tx) => {
        const clients = await tx.oidcPayloads.grantedClients(user.uuid, new Date());
        await signOutEverywhere(tx, user.uuid);
        await audit(tx, 'logout', { user: user.uuid, details: { clients, from: 'admin', everywhere: true } });
      });
      return 'sessions-ended';
    },
  },
  'recovery-link': {
    question: (user) => `Make a link for ${user.name} to set a password?`,
    button: 'Make the link',
    explain: 'The link is shown once, here; it works for 24 hours and once. Their password stays until they use it.',
    async run(deps, user, ctx) {
      ctx.state.recoveryLink = await createRecoveryLink(deps.store, deps.settings.issuer.base_url, user.id, deps.settings.secrets.key);
    },
  },
};

function actionOf(ctx: Context): Action {
  const action = Object.hasOwn(ACTIONS, ctx.params.action ?? '') ? ACTIONS[ctx.params.action!] : undefined;
  if (!action) throw notFound('No such action', 'The console does not do that.', { href: '/admin/users/', label: 'Back to people' });
  return action;
}

export function confirmAction(deps: AccountDeps) {
  return async function confirmAction(ctx: Context) {
    const action = actionOf(ctx);
    const user = await userOfPath(deps, ctx.params.pk);
    renderConfirmation(ctx, 'users', {
      heading: action.question(user),
      explain: action.explain,
      button: action.button,
      action: `/admin/users/${user.id}/${ctx.params.action}`,
      back: `/admin/users/${user.id}/`,
    });
  };
}

export function runAction(deps: AccountDeps) {
  const show = showUser(deps);
  return async function runAction(ctx: Context) {
    const action = actionOf(ctx);
    const user = await userOfPath(deps, ctx.params.pk);
    const notice = await action.run(deps, user, ctx);
    if (!notice) return show(ctx); // the recovery link is shown once, on this answer
    ctx.status = 303;
    ctx.redirect(`/admin/users/${user.id}/?notice=${notice}`);
  };
}
