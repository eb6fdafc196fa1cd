/** Path parameters that cannot name a resource answer 404, like an unknown one. */
import { notFound } from './errors.js';

export function userPk(raw: string | undefined): number {
  if (!raw || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2147483647) throw notFound();
  return Number(raw);
}

export function groupPk(raw: string | undefined): string {
  if (!raw || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw)) throw notFound();
  return raw.toLowerCase();
}
