/** Domain failures. The web layers render them (API: JSON field map / detail; pages: readable text). */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
  constructor(what = 'resource') {
    super(`${what} not found`);
  }
}

/** Input that breaks a rule; `fields` maps a field name to its messages. */
export class ValidationError extends Error {
  override name = 'ValidationError';
  constructor(readonly fields: Record<string, string[]>) {
    super(Object.entries(fields).map(([field, messages]) => `${field}: ${messages.join(' ')}`).join('; '));
  }
}
