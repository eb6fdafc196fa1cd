/** How long to wait, in words, for every page that asks someone to wait. */
/** "14 minutes" (as in "Try again in 14 minutes."). */
/** The same wait as a message's values: `{unit, select, second {…} minute {…} other {…}}` with `{count, plural, …}`. */
export function waitValues(seconds: number): { unit: 'second' | 'minute' | 'hour'; count: number } {
  if (seconds < 90) return { unit: 'second', count: seconds };
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return { unit: 'minute', count: minutes };
  return { unit: 'hour', count: Math.ceil(minutes / 60) };
}

export function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.ceil(minutes / 60);
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}
