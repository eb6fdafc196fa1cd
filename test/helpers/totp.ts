/** TOTP codes as an authenticator app computes them (speakeasy, RFC 6238), from the secret the enrolment page shows. */
import speakeasy from 'speakeasy';
import type { Page } from 'playwright-core';

export const totpCode = (secret: string, at = Date.now()) =>
  speakeasy.totp({ secret, encoding: 'base32', time: Math.floor(at / 1000), step: 30 });

/** A code of a different time step than `at` (two steps later: outside the ±1 window of now, never a replay). */
export const otherStepCode = (secret: string, at = Date.now()) => totpCode(secret, at + 60_000);

/** Reads the secret off the enrolment page (the text shown for manual entry). */
export async function secretOnPage(page: Page): Promise<string> {
  return (await page.locator('#totp-secret').textContent())!.replace(/\s/g, '');
}
