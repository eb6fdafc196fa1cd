/**
 * Chromium's virtual authenticator (DevTools Protocol, WebAuthn domain) through playwright-core's CDP session:
 * a platform authenticator with resident keys and user verification that answers without a person.
 */
import type { CDPSession, Page } from 'playwright-core';

export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
  credentials(): Promise<VirtualCredential[]>;
  /** Puts a credential back with an older sign count, as a cloned authenticator would present it. */
  rewind(credential: VirtualCredential, signCount: number): Promise<void>;
  clear(): Promise<void>;
  /** The same credentials moved to an authenticator that proves presence only (a security key without a PIN). */
  withoutUserVerification(): Promise<VirtualAuthenticator>;
}

export async function addVirtualAuthenticator(
  page: Page,
  options: { userVerification?: boolean; cdp?: CDPSession } = {},
): Promise<VirtualAuthenticator> {
  const cdp = options.cdp ?? (await page.context().newCDPSession(page));
  if (!options.cdp) await cdp.send('WebAuthn.enable', { enableUI: false });
  const verifies = options.userVerification ?? true;
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      ctap2Version: 'ctap2_1',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: verifies,
      isUserVerified: verifies,
      automaticPresenceSimulation: true,
    },
  });
  return {
    cdp,
    authenticatorId,
    async credentials() {
      return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[];
    },
    async rewind(credential, signCount) {
      await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount } });
    },
    async withoutUserVerification() {
      const credentials = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
      const other = await addVirtualAuthenticator(page, { userVerification: false, cdp });
      for (const credential of credentials)
        await cdp.send('WebAuthn.addCredential', { authenticatorId: other.authenticatorId, credential });
      return other;
    },
    async clear() {
      await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
    },
  };
}
