/**
 * What the admin API answers for an API token and a signing key. The CLI prints these same views whether it
 * read the database itself or asked the running server, so both paths print the same thing.
 */
import type { ApiTokenRow, SigningKeyRow } from '../store/contract.js';
import type { SigningAlg } from '../settings/signing-algorithms.js';

/** Timestamps as ISO 8601 UTC text, as they travel in JSON; never the secret or its hash. */
export interface ApiTokenView {
  id: string;
  name: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Never the private key: only what identifies it and its place in the rotation. */
export interface SigningKeyView {
  kid: string;
  alg: SigningAlg;
  state: 'active' | 'retired';
  created_at: string;
  retired_at: string | null;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function apiTokenView(row: ApiTokenRow): ApiTokenView {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    created_at: row.created_at.toISOString(),
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
  };
}

export function signingKeyView(row: SigningKeyRow): SigningKeyView {
  return { kid: row.kid, alg: row.alg, state: row.state, created_at: row.created_at.toISOString(), retired_at: iso(row.retired_at) };
}

/** A rotation's answer: the new RS256 key's fields (as before there were algorithms) and every algorithm's new key. */
export interface SigningKeyRotationView extends SigningKeyView {
  keys: SigningKeyView[];
}
