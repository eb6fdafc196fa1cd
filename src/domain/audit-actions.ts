/**
 * Every action the audit trail records (docs/api.md describes each). One list: `audit()` takes only these (the
 * compiler holds every call to it), and the command line's `--action` filter names an unknown one instead of
 * silently finding nothing.
 */
export const AUDIT_ACTIONS = [
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.denied',
  'mfa.enrolled',
  'mfa.removed',
  'recovery_codes.regenerated',
  'passkey.added',
  'passkey.renamed',
  'passkey.removed',
  'passkey.clone_detected',
  'password.set',
  'password.reset',
  'password.changed',
  'password.recovery_link_created',
  'email.change_requested',
  'logout',
  'token.revoked',
  'user.created',
  'user.updated',
  'user.deleted',
  'user.invited',
  'user.registered',
  'group.created',
  'group.updated',
  'group.deleted',
  'group.member_added',
  'group.member_removed',
  'api_token.created',
  'api_token.revoked',
  'source.linked',
  'source.unlinked',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const isAuditAction = (value: string): value is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(value);
