/**
 * Passkeys (WebAuthn) with @simplewebauthn/server. The relying-party id is the host name of issuer.base_url and
 * the only accepted origin is its origin. Every ceremony answers a challenge issued here, spent once (the store
 * deletes it), for one purpose ("sign-in:<interaction>", "account:<session>"), within five minutes.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { PasskeyRow, Store, UserRow } from '../store/contract.js';
import { audit } from './audit.js';

const CHALLENGE_TTL_MS = 5 * 60_000;
/** Live challenges one purpose keeps: a page offers at most two ceremonies (autofill and a button); a reload, two more. */
const CHALLENGES_KEPT = 5;
export const PASSKEY_NAME_MAX = 64;

export interface RelyingParty {
  /** The host name of the base URL (no port): what passkeys are bound to. */
  id: string;
  origin: string;
  name: string;
}

export function relyingPartyOf(baseUrl: string): RelyingParty {
  const url = new URL(baseUrl);
  return { id: url.hostname, origin: url.origin, name: url.host };
}

/** The WebAuthn user handle: the user's uuid as 16 bytes (no personal data; the same value as `sub`). */
const userHandleOf = (uuid: string) => new Uint8Array(Buffer.from(uuid.replace(/-/g, ''), 'hex'));
const uuidOfHandle = (handle: string) => {
  const hex = Buffer.from(handle, 'base64url').toString('hex');
  return hex.length === 32
    ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
    : undefined;
};

/**
 * RFC 8176: `hwk` for a key bound to one device, `swk` for a synced one (software-held), plus `user` when the
 * authenticator verified the person (PIN or biometrics), which makes the passkey a second factor by itself.
 */
export const amrOf = (passkey: Pick<PasskeyRow, 'device_type'>, userVerified: boolean) => [
  passkey.device_type === 'multiDevice' ? 'swk' : 'hwk',
  ...(userVerified ? ['user'] : []),
];

/** The browser's answer, posted as JSON text; undefined when it is not JSON (then it fails like a wrong answer). */
function parseAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const spend = (store: Store, purpose: string) => (challenge: string) => store.passkeys.consumeChallenge(challenge, purpose, new Date());
const expiry = () => new Date(Date.now() + CHALLENGE_TTL_MS);

export async function registrationOptions(
  store: Store,
  rp: RelyingParty,
  user: UserRow,
  purpose: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await store.passkeys.listForUser(user.id);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name,
    userID: userHandleOf(user.uuid),
    attestationType: 'none',
    excludeCredentials: existing.map(({ id, transports }) => ({ id, transports })),
    // Discoverable, so the same passkey also signs in without a password.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await store.passkeys.saveChallenge(options.challenge, purpose, expiry(), CHALLENGES_KEPT);
  return options;
}

/**
 * Verifies a new passkey and stores it; undefined when the response does not hold (or the passkey is known).
 * `amr` says what creating it proved (hwk/swk, and user when the authenticator verified the person).
 */
export async function registerPasskey(
  store: Store,
  rp: RelyingParty,
  user: UserRow,
  input: { answer: string; purpose: string; name: string },
): Promise<{ passkey: PasskeyRow; amr: string[] } | undefined> {
  const response = parseAnswer(input.answer);
  if (!response) return undefined;
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: spend(store, input.purpose),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch {
    return undefined;
  }
  if (!verified.verified) return undefined;
  const { credential, credentialDeviceType, credentialBackedUp, userVerified } = verified.registrationInfo;
  const row = {
    id: credential.id,
    user_id: user.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    sign_count: credential.counter,
    transports: credential.transports ?? [],
    device_type: credentialDeviceType,
    backed_up: credentialBackedUp,
    name: input.name.slice(0, PASSKEY_NAME_MAX),
  };
  return store.transaction(async (tx) => {
    if (!(await tx.passkeys.add(row))) return undefined;
    await audit(tx, 'passkey.added', {
      user: user.uuid,
      details: { passkey: row.id, device_type: row.device_type, backed_up: row.backed_up },
    });
    return { passkey: (await tx.passkeys.find(row.id))!, amr: amrOf(row, userVerified) };
  });
}

/**
 * Options for a sign-in. Without `allow` the browser offers any passkey of this site (passwordless, autofill);
 * with it, only those (the second factor of a known user).
 */
export async function authenticationOptions(
  store: Store,
  rp: RelyingParty,
  purpose: string,
  allow?: PasskeyRow[],
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: allow?.map(({ id, transports }) => ({ id, transports })) ?? [],
    userVerification: allow ? 'preferred' : 'required',
  });
  await store.passkeys.saveChallenge(options.challenge, purpose, expiry(), CHALLENGES_KEPT);
  return options;
}

export type PasskeyCheck = { ok: true; passkey: PasskeyRow; userUuid: string; amr: string[] } | { ok: false; reason: 'invalid' | 'cloned' };

/**
 * Checks a passkey's answer to a challenge of `purpose`. Passwordless (no `userId`) requires user verification;
 * as a second factor the passkey must be one of `userId`'s. A sign counter that did not move forward means two
 * authenticators hold the key (a clone): audited and refused.
 */
export async function checkPasskey(
  store: Store,
  rp: RelyingParty,
  input: { answer: string; purpose: string; userId?: number },
): Promise<PasskeyCheck> {
  const response = parseAnswer(input.answer) as AuthenticationResponseJSON | undefined;
  if (typeof response?.id !== 'string') return { ok: false, reason: 'invalid' };
  const passkey = await store.passkeys.find(response.id);
  if (!passkey || (input.userId !== undefined && passkey.user_id !== input.userId)) return { ok: false, reason: 'invalid' };
  const user = await store.users.findById(passkey.user_id);
  const handle = response.response?.userHandle;
  if (!user || (handle && uuidOfHandle(handle) !== user.uuid)) return { ok: false, reason: 'invalid' };
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: spend(store, input.purpose),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
        counter: passkey.sign_count,
        transports: passkey.transports as never,
      },
      requireUserVerification: input.userId === undefined,
    });
  } catch (error) {
    if (/counter value/i.test((error as Error).message)) {
      await audit(store, 'passkey.clone_detected', { user: user.uuid, details: { passkey: passkey.id, stored_count: passkey.sign_count } });
      return { ok: false, reason: 'cloned' };
    }
    return { ok: false, reason: 'invalid' };
  }
  if (!verified.verified) return { ok: false, reason: 'invalid' };
  const info = verified.authenticationInfo;
  // Two uses racing with one counter value: one wins, the other is refused like a clone would be.
  if (!(await store.passkeys.recordUse(passkey.id, passkey.sign_count, info.newCounter, info.credentialBackedUp, new Date())))
    return { ok: false, reason: 'invalid' };
  return { ok: true, passkey, userUuid: user.uuid, amr: amrOf({ device_type: info.credentialDeviceType }, info.userVerified) };
}
