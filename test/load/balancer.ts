/**
 * The clients' side of a load balancer over the `idp serve` replicas: every request names the public URL
 * (issuer.base_url, the same for every replica) and goes to the next replica in turn. A connection error or a 5xx
 * is tried once more at the next replica, as a client behind a balancer with retries does; a refused connection
 * (nothing listens: the process is gone) also takes that replica out of the turn, as a passive health check does.
 * A request aimed at one replica (`at`) is neither retried nor counted by the health check. Every attempt is recorded
 * with when it started, where it went and how it ended.
 */
import type { Send } from '../helpers/http-client.js';

export interface Attempt {
  replica: number;
  /** ms since the run's clock started. */
  at: number;
  ms: number;
  status?: number;
  /** The connection's error code (ECONNREFUSED, UND_ERR_SOCKET, TimeoutError…) when no answer came. */
  error?: string;
  /** Nothing listened: the request never reached a process. Any other error may have been processed before the answer was lost. */
  refused?: boolean;
}

export interface RequestRecord {
  kind: string;
  attempts: Attempt[];
}

const TIMEOUT_MS = 30_000;

function failureOf(error: unknown): { error: string; refused: boolean } {
  const cause = (error as { cause?: { code?: string } }).cause;
  const code = cause?.code ?? (error as Error).name ?? 'Error';
  return { error: code, refused: code === 'ECONNREFUSED' };
}

/** When the last attempt ended without an answer: the error carries the attempts. */
export class NoAnswer extends Error {
  constructor(readonly record: RequestRecord) {
    super(`${record.kind}: no answer (${record.attempts.map((attempt) => `replica ${attempt.replica + 1} ${attempt.error}`).join(', ')})`);
  }
}

export class Balancer {
  readonly records: RequestRecord[] = [];
  readonly down = new Set<number>();
  private turn = 0;

  constructor(
    private readonly origins: string[],
    private readonly publicOrigin: string,
    private readonly now: () => number,
  ) {}

  /** The replicas still in the turn. */
  live(): number[] {
    return this.origins.map((_, index) => index).filter((index) => !this.down.has(index));
  }

  private pick(avoid?: number): number {
    const live = this.live();
    const candidates = live.length > 1 && avoid !== undefined ? live.filter((index) => index !== avoid) : live;
    return candidates[this.turn++ % candidates.length] ?? 0;
  }

  private async attempt(
    replica: number,
    url: URL,
    init: RequestInit,
    balanced: boolean,
  ): Promise<{ attempt: Attempt; response?: Response }> {
    const target = new URL(url.href);
    if (target.origin !== this.publicOrigin) throw new Error(`not a URL of the service: ${url.href}`);
    const origin = new URL(this.origins[replica]!);
    target.protocol = origin.protocol;
    target.host = origin.host;
    const at = this.now();
    try {
      const response = await fetch(target, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
      return { attempt: { replica, at, ms: this.now() - at, status: response.status }, response };
    } catch (error) {
      const failure = failureOf(error);
      if (failure.refused && balanced) this.down.add(replica);
      return { attempt: { replica, at, ms: this.now() - at, ...failure } };
    }
  }

  /**
   * Sends one request (a URL at the public origin) to the next replica, or only to replica `at`. Resolves with the
   * last answer (whatever its status); throws NoAnswer when the last attempt got none. `sink` also gets the record.
   */
  async send(kind: string, url: URL | string, init: RequestInit = {}, options: { at?: number; sink?: RequestRecord[] } = {}) {
    const record: RequestRecord = { kind, attempts: [] };
    this.records.push(record);
    options.sink?.push(record);
    const balanced = options.at === undefined;
    const first = options.at ?? this.pick();
    let { attempt, response } = await this.attempt(first, new URL(url), init, balanced);
    record.attempts.push(attempt);
    if (balanced && (!response || response.status >= 500)) {
      await response?.arrayBuffer();
      ({ attempt, response } = await this.attempt(this.pick(first), new URL(url), init, balanced));
      record.attempts.push(attempt);
    }
    if (!response) throw new NoAnswer(record);
    return response;
  }

  /** A fetch for CookieClient: each request of a sign-in is balanced on its own, recorded as `kind`. */
  sender(kind: string, sink?: RequestRecord[]): Send {
    return (url, init) => this.send(kind, url, init, { sink });
  }
}
