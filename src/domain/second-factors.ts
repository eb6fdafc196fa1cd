/** RFC 8176 methods that count as a second factor here: a one-time code, a passkey, or an upstream's trusted MFA. */
const SECOND_FACTORS = new Set(['otp', 'hwk', 'swk', 'mfa']);

/** Whether a sign-in's `amr` shows a second factor (require_mfa, the admin console). */
export const hasSecondFactor = (amr: readonly string[] | undefined) => (amr ?? []).some((method) => SECOND_FACTORS.has(method));
