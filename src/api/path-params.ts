/** Path parameters that cannot name a resource answer 404, like an unknown one. */
import { UUID } from '../uuid.js';
import { notFound } from './errors.js';

export function userPk(raw: string | undefined): number {
  if (!raw || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2147483647) throw notFound();
  return Number(raw);
}

export function groupPk(raw: string | undefined): string {
  if (!raw || !UUID.test(raw)) throw notFound();
  return raw.toLowerCase();
}

/** A source's slug, as the configuration allows them. */
export function sourceSlug(raw: string | undefined): string {
  if (!raw || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(raw)) throw notFound();
  return raw;
}
