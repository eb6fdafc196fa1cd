/** One outbound POST with a hard timeout, for webhooks and backchannel logout. Never follows redirects. */
import { isSecureOrLoopbackUrl } from '../src/loopback.js';
export interface AttemptResult {
  status: number | null;
  error: string | null;
  durationMs: number;
  /** A 429 or 503 answer's Retry-After, when the caller honours it: the delay before the next attempt, capped. */
  retryAfterMs?: number;
}

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP date; a date in the past means now. Capped to
 * `maxMs`; undefined when absent or unreadable (the backoff applies then).
 */
export function parseRetryAfter(value: string | null, maxMs: number, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(ms, 0), maxMs);
}

/** The same rule config validation applies to receiver URLs (https; http on loopback when allowed). */
export const isAllowedTarget = (url: string, allowInsecureLoopback: boolean) => isSecureOrLoopbackUrl(url, allowInsecureLoopback);

export async function postWithTimeout(
  url: string,
  options: {
    body: string;
    headers: Record<string, string>;
    timeoutMs: number;
    allowInsecureLoopback: boolean;
    retryAfterMaxSeconds?: number;
  },
): Promise<AttemptResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  if (!isAllowedTarget(url, options.allowInsecureLoopback)) {
    return { status: null, error: 'refused: receivers must use https', durationMs: 0 };
  }
  try {
    const response = await fetch(url, {
      method: 'POST',
      body: options.body,
      headers: options.headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    await response.body?.cancel().catch(() => {});
    const honoured = options.retryAfterMaxSeconds !== undefined && (response.status === 429 || response.status === 503);
    const retryAfterMs = honoured ? parseRetryAfter(response.headers.get('retry-after'), options.retryAfterMaxSeconds! * 1000) : undefined;
    return { status: response.status, error: null, durationMs: took(), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  } catch (error) {
    const { name, message, cause } = error as Error & { cause?: { code?: string; message?: string } };
    const text = name === 'TimeoutError' ? `timeout after ${options.timeoutMs} ms` : (cause?.code ?? cause?.message ?? message);
    return { status: null, error: text, durationMs: took() };
  }
}

/** 5xx, 429 and network failures may heal; other answers will not. */
export const isRetryable = (result: AttemptResult) =>
  result.status === null ? !result.error?.startsWith('refused') : result.status >= 500 || result.status === 429;

export const describeOutcome = (result: AttemptResult) =>
  result.status !== null ? `receiver answered ${result.status}` : `delivery failed: ${result.error}`;
