/**
 * Calls made at the same moment, answered by one: a worker runs up to `worker.concurrency` deliveries at once,
 * and each would read its delivery and log its attempt in round trips of its own; the token requests answered in
 * one moment each write their tokens. The calls of one turn of the event loop are collected and `run` once (up
 * to `max` at a time); each caller gets its own answer, or the batch's error.
 */
export function batchCalls<I, O>(run: (inputs: I[]) => Promise<O[]>, max = 500): (input: I) => Promise<O> {
  let waiting: Array<{ input: I; resolve(output: O): void; reject(error: unknown): void }> = [];

  function flush() {
    const batch = waiting.splice(0, max);
    if (waiting.length) setImmediate(flush);
    run(batch.map((call) => call.input)).then(
      (outputs) => batch.forEach((call, i) => call.resolve(outputs[i]!)),
      (error) => batch.forEach((call) => call.reject(error)),
    );
  }

  return (input) =>
    new Promise<O>((resolve, reject) => {
      if (!waiting.length) setImmediate(flush);
      waiting.push({ input, resolve, reject });
    });
}
