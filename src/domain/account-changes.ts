/**
 * What a person changes about their own account (the account page): the password, second factors, passkeys,
 * and where they are signed in. Each change lands with its audit event (actor: the user) in one transaction,
 * and a change that ends sessions queues the backchannel logouts in that same transaction.
 */
import { text, type Text } from '../i18n/messages.js';
import type { Store, UserRow } from '../store/contract.js';
import { dummyHash, verifyPassword, type PasswordPolicy } from './passwords.js';
import { newPasswordProblems } from './password-setup.js';
import type { SendMail } from './mail.js';
import { revokeApplicationAccess, signOutEverywhere } from './logout.js';
import { changeCredentials } from './credential-changes.js';
import { audit, currentActor } from './audit.js';
import { issueRecoveryCodes } from './recovery-codes.js';
import { PASSKEY_NAME_MAX } from './passkeys.js';

const asUser = (user: UserRow) => ({ ...currentActor(), type: 'user' as const, id: user.uuid });

export type PasswordChange = { ok: true } | { ok: false; field: 'current' | 'password'; problems: Text[] };

/**
 * Checks the current password, then sets the new one by the rule of every credential change
 * (credential-changes.ts): the user's other sessions end and every grant and token goes (their applications
 * hear a backchannel logout); this browser's session (`keepSession`) stays; a notice is mailed.
 */
export async function changePassword(
  store: Store,
  sendMail: SendMail,
  input: {
    user: UserRow;
    current: string;
    password: string;
    confirmation: string;
    policy: PasswordPolicy;
    keepSession: string;
    now?: Date;
    locale?: string;
  },
): Promise<PasswordChange> {
  const { user, policy } = input;
  const hash = await store.credentials.passwordHash(user.id);
  // Without a password yet, the check still costs a bcrypt verification (and fails).
  if (!(await verifyPassword(input.current, hash ?? (await dummyHash(policy.bcrypt_cost)))) || !hash) {
    return { ok: false, field: 'current', problems: [text('account.password.current_wrong')] };
  }
  const problems = newPasswordProblems(input.password, input.confirmation, user.email, policy);
  if (input.password === input.current) problems.push(text('password.same_as_current'));
  if (problems.length) return { ok: false, field: 'password', problems };
  await changeCredentials(store, sendMail, {
    userId: user.id,
    change: { password: input.password, policy },
    by: { kind: 'account_page', keepSession: input.keepSession },
    now: input.now,
    locale: input.locale,
  });
  return { ok: true };
}

/** Removes TOTP and the recovery codes that go with it. */
export async function removeOwnTotp(store: Store, user: UserRow): Promise<boolean> {
  return store.transaction(async (tx) => {
    const removed = await tx.mfa.removeAll(user.id);
    if (removed) await audit(tx, 'mfa.removed', { user: user.uuid, actor: asUser(user) });
    return removed;
  });
}

/** New recovery codes replace the old ones; returned in clear this once. */
export async function regenerateRecoveryCodes(store: Store, user: UserRow, key: string): Promise<string[]> {
  return store.transaction(async (tx) => {
    const codes = await issueRecoveryCodes(tx, user.id, key);
    await audit(tx, 'recovery_codes.regenerated', { user: user.uuid, actor: asUser(user) });
    return codes;
  });
}

export async function renamePasskey(store: Store, user: UserRow, id: string, name: string): Promise<boolean> {
  const trimmed = name.trim().slice(0, PASSKEY_NAME_MAX);
  if (!trimmed) return false;
  return store.transaction(async (tx) => {
    const renamed = await tx.passkeys.rename(user.id, id, trimmed);
    if (renamed) await audit(tx, 'passkey.renamed', { user: user.uuid, actor: asUser(user), details: { passkey: id } });
    return renamed;
  });
}

export async function removePasskey(store: Store, user: UserRow, id: string): Promise<boolean> {
  return store.transaction(async (tx) => {
    const removed = await tx.passkeys.remove(user.id, id);
    if (removed) await audit(tx, 'passkey.removed', { user: user.uuid, actor: asUser(user), details: { passkey: id } });
    return removed;
  });
}

/** Signs the user out of one application: its grant and tokens end, and it hears a backchannel logout. */
export async function signOutOfApplication(store: Store, user: UserRow, clientId: string): Promise<void> {
  await store.transaction(async (tx) => {
    await revokeApplicationAccess(tx, user.uuid, [clientId]);
    await audit(tx, 'logout', { user: user.uuid, actor: asUser(user), details: { clients: [clientId], from: 'account' } });
  });
}

/** Every session (this browser's too), grant and token ends; every application with a grant hears a backchannel logout. */
export async function signOutOfEverything(store: Store, user: UserRow): Promise<void> {
  await store.transaction(async (tx) => {
    const clients = await tx.oidcPayloads.grantedClients(user.uuid, new Date());
    await signOutEverywhere(tx, user.uuid);
    await audit(tx, 'logout', { user: user.uuid, actor: asUser(user), details: { clients, from: 'account', everywhere: true } });
  });
}
