/** One outbound POST with a hard timeout, for webhooks and backchannel logout. Never follows redirects. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isAllowedTarget(url: string, allowInsecureLoopback: boolean): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'https:') return true;
  return parsed.protocol === 'http:' && allowInsecureLoopback && (LOOPBACK.has(parsed.hostname) || parsed.hostname.startsWith('127.'));
}

export async function postWithTimeout(url: string, options: { body: string; headers: Record<string, string>; timeoutMs: number; allowInsecureLoopback: boolean }): Promise<AttemptResult> {
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
    return { status: response.status, error: null, durationMs: took() };
  } catch (error) {
    const { name, message, cause } = error as Error & { cause?: { code?: string; message?: string } };
    const text = name === 'TimeoutError' ? `timeout after ${options.timeoutMs} ms` : cause?.code ?? cause?.message ?? message;
    return { status: null, error: text, durationMs: took() };
  }
}

/** 5xx, 429 and network failures may heal; other answers will not. */
export const isRetryable = (result: AttemptResult) => result.status === null ? !result.error?.startsWith('refused') : result.status >= 500 || result.status === 429;

export const describeOutcome = (result: AttemptResult) => (result.status !== null ? `receiver answered ${result.status}` : `delivery failed: ${result.error}`);
