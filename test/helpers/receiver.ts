/** A real HTTP receiver on 127.0.0.1 that records raw bodies and headers and answers as the test scripts it. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  at: number;
}
export type Answer = number | { status: number; headers: Record<string, string> } | 'hang';
/**
 * Returns the status to answer (with headers, e.g. Retry-After), or 'hang' to never answer (a receiver that
 * times out or dies mid-request); a promise of one answers when it settles (a slow receiver).
 */
export type Responder = (request: Received, index: number) => Answer | Promise<Answer>;

export interface Receiver {
  url: string;
  received: Received[];
  respond: Responder;
  /** Resolves when at least `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => 200): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    respond,
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${receiver.received.length} of ${count} requests`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return receiver.received;
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const entry = { headers: request.headers, raw: Buffer.concat(chunks), at: Date.now() };
      receiver.received.push(entry);
      const answer = await receiver.respond(entry, receiver.received.length - 1);
      if (answer === 'hang') return void hanging.push(response);
      if (response.destroyed) return; // the sender went away while a slow answer was pending
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      response.writeHead(status, { 'Content-Type': 'text/plain', ...headers }).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
