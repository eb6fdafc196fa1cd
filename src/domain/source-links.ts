/**
 * Who a person coming from an upstream identity provider is here (docs/federation.md). The rules, in order:
 * 1. a link (source, subject) names the user: that user, when active;
 * 2. no link, and no user has the address the upstream gives: a new user, just in time (the source's `provision`),
 *    made by createUser like the API's (same events, same audit), in the source's groups, linked in the same
 *    transaction;
 * 3. no link, and a user has that address: never linked silently — an upstream that lets anyone claim any address
 *    would hand the account over. The person proves the account once (its password, and its second factor when it
 *    has one), then it is linked; only `trust_email` with the upstream saying the address is verified skips that.
 * A deactivated user is refused whichever way they come.
 */
import type { ApplicationSettings, SourceSettings } from '../settings/schema.js';
import { UniqueViolation, type Store, type UserRow } from '../store/contract.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { createUser } from './users.js';
import { audit } from './audit.js';

/** What an upstream said about the person, as the sign-in takes it. */
export interface UpstreamIdentity {
  /** The source's slug. */
  source: string;
  /** The upstream's stable identifier of the person (`sub`; the mapped claim for oauth2 sources). */
  subject: string;
  /** The address as the upstream gives it (absent when it gives none, or none that is an address). */
  email?: string;
  /** True only when the upstream said so with the boolean true. */
  emailVerified: boolean;
  name?: string;
  /** The upstream's group names (the source's groups_claim), when it has one. */
  groups?: string[];
  /** How the upstream says the person signed in there (its ID token's amr and acr). */
  amr?: string[];
  acr?: string;
}

/** A link waiting for the person to prove the account (carried by the sign-in's ticket). */
export interface PendingLink {
  source: string;
  subject: string;
  /** The upstream groups to keep in step once the link is made. */
  groups?: string[];
}

export type RefusalReason = 'inactive' | 'unknown' | 'no_email' | 'linked_elsewhere';

export type SourceOutcome =
  /** Signed in as this user: by their link, or linked just now (new account, or a verified address the source trusts). */
  | { kind: 'signed_in'; user: UserRow; how: 'link' | 'provisioned' | 'trusted_email' }
  /** A user has this address and no link to this upstream identity: they must prove the account first. */
  | { kind: 'prove'; user: UserRow }
  | { kind: 'refused'; reason: RefusalReason; user?: UserRow };

export class LinkConflict extends Error {
  override name = 'LinkConflict';
  constructor(readonly reason: 'subject_taken' | 'source_taken') {
    super(
      reason === 'subject_taken'
        ? 'this upstream identity is linked to another user'
        : 'the user is linked to another identity at this source',
    );
  }
}

/** How the link came to be, for the audit trail. */
export type LinkedBy = 'proof' | 'trusted_email' | 'provisioned';

/** The longest name a new account takes from an upstream. */
const NAME_LIMIT = 150;

/** `applications`: what createUser needs to tell the applications that provision everyone (SCIM) of a new account. */
export async function resolveUpstreamIdentity(
  store: Store,
  source: SourceSettings,
  identity: UpstreamIdentity,
  applications: ApplicationSettings[],
): Promise<SourceOutcome> {
  const link = await store.sourceLinks.find(source.slug, identity.subject);
  if (link) {
    const user = await store.users.findById(link.user_id);
    if (!user) return { kind: 'refused', reason: 'unknown' }; // deleted a moment ago (its links went with it)
    if (!user.is_active) return { kind: 'refused', reason: 'inactive', user };
    await store.sourceLinks.touch(source.slug, identity.subject, new Date());
    return { kind: 'signed_in', user, how: 'link' };
  }
  if (!identity.email) return { kind: 'refused', reason: 'no_email' };
  const existing = await store.users.findByEmail(identity.email);
  if (existing) {
    if (!existing.is_active) return { kind: 'refused', reason: 'inactive', user: existing };
    // Linked to another person at this source already: one link per user and source, whatever is proven.
    if ((await store.sourceLinks.listForUser(existing.id)).some((other) => other.source === source.slug))
      return { kind: 'refused', reason: 'linked_elsewhere', user: existing };
    if (!(source.trust_email && identity.emailVerified)) return { kind: 'prove', user: existing };
    try {
      await linkSource(store, existing, identity, 'trusted_email');
    } catch (error) {
      if (error instanceof LinkConflict) return { kind: 'refused', reason: 'linked_elsewhere', user: existing };
      throw error;
    }
    return { kind: 'signed_in', user: existing, how: 'trusted_email' };
  }
  if (!source.provision) return { kind: 'refused', reason: 'unknown' };
  try {
    return { kind: 'signed_in', user: await provisionFromSource(store, source, identity, applications), how: 'provisioned' };
  } catch (error) {
    // Another sign-in of this person (or an API call) made the account or the link a moment ago: decide again.
    // Whatever exists now decides; without provisioning, so a second loss is not retried.
    if (error instanceof ValidationError || error instanceof LinkConflict)
      return resolveUpstreamIdentity(store, { ...source, provision: false }, identity, applications);
    throw error;
  }
}

/**
 * Links the user to the upstream identity, with its audit event, in one transaction. Linking again what is linked
 * already is harmless; an identity linked to someone else, or a user linked to another identity at this source,
 * is a LinkConflict (unique both ways).
 */
export async function linkSource(store: Store, user: UserRow, identity: PendingLink, by: LinkedBy): Promise<void> {
  try {
    await store.transaction(async (tx) => {
      await tx.sourceLinks.insert({ source: identity.source, subject: identity.subject, user_id: user.id });
      await audit(tx, 'source.linked', { user: user.uuid, details: { source: identity.source, by } });
    });
  } catch (error) {
    if (!(error instanceof UniqueViolation)) throw error;
    const existing = await store.sourceLinks.find(identity.source, identity.subject);
    if (existing?.user_id === user.id) return;
    throw new LinkConflict(error.field === 'subject' ? 'subject_taken' : 'source_taken');
  }
}

/** A new user for the upstream identity, in the source's groups, linked; the same events and audit as the API's create. */
async function provisionFromSource(
  store: Store,
  source: SourceSettings,
  identity: UpstreamIdentity,
  applications: ApplicationSettings[],
): Promise<UserRow> {
  const email = identity.email!;
  const name = identity.name?.trim().slice(0, NAME_LIMIT) || email.split('@')[0]!;
  try {
    return await store.transaction(async (tx) => {
      const groups = await ensureGroupsNamed(tx, source.groups);
      const view = await createUser(
        tx,
        {
          username: email,
          email,
          name,
          email_verified: identity.emailVerified,
          groups: [...groups.values()],
        },
        applications,
      );
      const user = (await tx.users.findById(view.pk))!;
      await tx.sourceLinks.insert({ source: source.slug, subject: identity.subject, user_id: user.id });
      await audit(tx, 'source.linked', { user: user.uuid, details: { source: source.slug, by: 'provisioned' satisfies LinkedBy } });
      return user;
    });
  } catch (error) {
    if (error instanceof UniqueViolation) throw new LinkConflict(error.field === 'subject' ? 'subject_taken' : 'source_taken');
    throw error;
  }
}

/** The groups with these names, created when missing (at start, and again if one was deleted since); name → uuid. */
export async function ensureGroupsNamed(store: Store, names: readonly string[]): Promise<Map<string, string>> {
  const uuids = new Map<string, string>();
  for (const name of new Set(names)) {
    let uuid = (await store.groups.findByName(name))?.uuid;
    if (!uuid) {
      try {
        uuid = (await store.groups.insert({ name })).uuid;
      } catch (error) {
        if (!(error instanceof UniqueViolation)) throw error;
        uuid = (await store.groups.findByName(name))?.uuid; // another replica created it first
      }
    }
    if (uuid) uuids.set(name, uuid);
  }
  return uuids;
}

/** A user's link as the provisioning API shows it. */
export interface SourceLinkView {
  source: string;
  subject: string;
  created_at: string;
  last_used_at: string | null;
}

/** The user's links, by source; NotFoundError for an unknown user. */
export async function listUserLinks(store: Store, userId: number): Promise<SourceLinkView[]> {
  if (!(await store.users.findById(userId))) throw new NotFoundError('user');
  return (await store.sourceLinks.listForUser(userId)).map((link) => ({
    source: link.source,
    subject: link.subject,
    created_at: link.created_at.toISOString(),
    last_used_at: link.last_used_at?.toISOString() ?? null,
  }));
}

/**
 * Removes the user's link to `source` (an operator's decision: the person then signs in through that source as a
 * stranger to this account, and proves it again to link it), with its audit event; NotFoundError when there is none.
 */
export async function unlinkSource(store: Store, userId: number, source: string): Promise<void> {
  await store.transaction(async (tx) => {
    const user = await tx.users.lockById(userId);
    if (!user) throw new NotFoundError('user');
    if (!(await tx.sourceLinks.remove(userId, source))) throw new NotFoundError('link');
    await audit(tx, 'source.unlinked', { user: user.uuid, details: { source } });
  });
}

export type OwnUnlink = 'unlinked' | 'not_found' | 'last_way';

/**
 * The person's own unlink, from the account page: only while another way to sign in remains — a password, a
 * passkey, or a link to another source — so nobody locks themselves out. Decided and done in one transaction, the
 * user's row locked (two tabs unlinking two sources cannot both take the last-but-one).
 */
export async function unlinkOwnSource(store: Store, user: UserRow, source: string): Promise<OwnUnlink> {
  return store.transaction(async (tx) => {
    await tx.users.lockById(user.id);
    const links = await tx.sourceLinks.listForUser(user.id);
    if (!links.some((link) => link.source === source)) return 'not_found';
    const another =
      links.length > 1 || Boolean(await tx.credentials.passwordHash(user.id)) || (await tx.passkeys.listForUser(user.id)).length > 0;
    if (!another) return 'last_way';
    await tx.sourceLinks.remove(user.id, source);
    await audit(tx, 'source.unlinked', { user: user.uuid, details: { source, by: 'user' } });
    return 'unlinked';
  });
}
