/** How long to wait, for every page that asks someone to wait. */

export type WaitUnit = 'second' | 'minute' | 'hour';

/**
 * The values of a catalogue message that says how long to wait, `{wait}` and `{unit}` (seconds under 90, minutes
 * under 90, else hours), as in "Try again in {unit, select, second {{wait, plural, one {# second} other {# seconds}}}
 * minute {…} other {…}}." (locales/en/sign-in.json's sign_in.limits.*): each language words the wait itself.
 */
export function waitValues(seconds: number): { wait: number; unit: WaitUnit } {
  if (seconds < 90) return { wait: seconds, unit: 'second' };
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return { wait: minutes, unit: 'minute' };
  return { wait: Math.ceil(minutes / 60), unit: 'hour' };
}
