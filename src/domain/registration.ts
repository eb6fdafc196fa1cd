/**
 * Self-registration (an application's `registration`): a person gives a name, an address and a password (or none,
 * to add a passkey once the account exists); the
 * address is confirmed by a mailed code before any account exists. Until then nothing is stored: what they typed
 * (the password already hashed) and the code's keyed hash ride in the page's signed ticket. An address that
 * already has an account gets a mail saying so instead of a code, and the same page: the form never tells
 * whether an address is known. Completing creates the account, active and verified, in the listed groups.
 */
import { randomInt } from 'node:crypto';
import type { ApplicationSettings, SourceSettings } from '../settings/schema.js';
import { UniquenessError } from '../errors.js';
import type { Store, UserRow } from '../store/contract.js';
import type { SendMail } from './mail.js';
import { alreadyRegisteredMessage, registrationCodeMessage } from './registration-mail.js';
import { hashPassword, lookUpAddress } from './passwords.js';
import { secretsFrom } from './secrets.js';
import { createUser } from './users.js';
import { ensureGroupsNamed } from './source-links.js';
import { audit } from './audit.js';
import { domainOf } from './email-address.js';

export const REGISTRATION_CODE_MINUTES = 15;

/** What the confirmation page carries between the two steps (signed with the sign-in's ticket). */
export interface PendingRegistration {
  email: string;
  name: string;
  /** Null: no password; the person adds a passkey once the account exists. */
  passwordHash: string | null;
  codeHash: string;
}

type RegistrationSettings = ApplicationSettings['registration'];

/** The address's domain is one the application accepts (any, when it lists none). */
export function acceptsAddress(registration: RegistrationSettings, email: string): boolean {
  const domains = registration?.email_domains ?? [];
  return domains.length === 0 || domains.includes(domainOf(email));
}

/**
 * The source whose `email_domains` claim the address. Its people sign in there, never with an account made here:
 * a local account would let someone removed upstream go on signing in.
 */
export function claimingSource(sources: readonly SourceSettings[], email: string): SourceSettings | undefined {
  const domain = domainOf(email);
  return sources.find((source) => source.email_domains?.includes(domain));
}

/**
 * Hashes the password, draws a code and mails it, or mails "you already have an account" when the address is
 * taken. Both paths hash, look up and queue one mail, so they take as long.
 */
export async function startRegistration(
  store: Store,
  sendMail: SendMail,
  input: { email: string; name: string; password: string | null; appName: string; cost: number; key: string; locale?: string },
): Promise<PendingRegistration> {
  const [lookup, passwordHash] = await Promise.all([
    lookUpAddress(store, input.email),
    input.password === null ? null : hashPassword(input.password, input.cost),
  ]);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const codeHash = secretsFrom(input.key).hash('registration-code', code);
  const existing = lookup.record?.user;
  await sendMail(
    existing
      ? alreadyRegisteredMessage(existing.email, existing.uuid, input.appName, input.locale)
      : registrationCodeMessage(input.email, input.appName, code, REGISTRATION_CODE_MINUTES, input.locale),
  );
  // A taken address keeps a code nobody was sent: every code typed is wrong, as on the other path's typos.
  return {
    email: input.email,
    name: input.name,
    passwordHash,
    codeHash: existing ? secretsFrom(input.key).hash('registration-code', `x${code}`) : codeHash,
  };
}

export type RegistrationOutcome = { ok: true; user: UserRow } | { ok: false; reason: 'code' | 'taken' };

/** Checks the code; when it is right, creates the account (active, address verified) in the registration's groups. */
export async function completeRegistration(
  store: Store,
  input: { pending: PendingRegistration; code: string; key: string; groups: readonly string[]; applications: ApplicationSettings[] },
): Promise<RegistrationOutcome> {
  const secrets = secretsFrom(input.key);
  if (!secrets.equal(secrets.hash('registration-code', input.code), input.pending.codeHash)) return { ok: false, reason: 'code' };
  const { email, name, passwordHash } = input.pending;
  const groups = [...(await ensureGroupsNamed(store, input.groups)).values()];
  try {
    const user = await store.transaction(async (tx) => {
      const made = await createUser(
        tx,
        { username: email, email, name, email_verified: true, is_active: true, groups },
        input.applications,
      );
      if (passwordHash) await tx.credentials.setPasswordHash(made.pk, passwordHash);
      await audit(tx, 'user.registered', { user: made.uuid });
      return (await tx.users.findById(made.pk))!;
    });
    return { ok: true, user };
  } catch (error) {
    // The address (or a username equal to it) was taken since the code was sent: the code proves the address, so saying so leaks nothing.
    if (error instanceof UniquenessError) return { ok: false, reason: 'taken' };
    throw error;
  }
}
