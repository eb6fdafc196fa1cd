/**
 * An engine payload's JSON, made once: the token paths write it (redeem-together.ts) and the replica keeps the
 * same text for its read cache (replica/replica-store.ts). The engine builds a new payload object for every save.
 */
const made = new WeakMap<object, string>();

export function payloadJson(payload: Record<string, unknown>): string {
  let json = made.get(payload);
  if (json === undefined) made.set(payload, (json = JSON.stringify(payload)));
  return json;
}
