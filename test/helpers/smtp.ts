/** A real SMTP listener (smtp-server) on 127.0.0.1 that keeps every message it receives, for the mail tests. */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  to: string[];
  raw: string;
}

export interface SmtpCapture {
  url: string;
  messages: CapturedMail[];
  /** Resolves with the next message to `to` not yet returned by an earlier call. */
  waitFor(to: string, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

/** `port` 0 picks a free one; a fixed port lets a test start the listener after the sender has failed once. */
export async function startSmtpCapture(port = 0): Promise<SmtpCapture> {
  const messages: CapturedMail[] = [];
  const taken = new Set<CapturedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  server.listen(port, '127.0.0.1');
  await once(server.server, 'listening');
  const bound = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    messages,
    async waitFor(to, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => !taken.has(m) && m.to.includes(to.toLowerCase()));
        if (found) {
          taken.add(found);
          return found;
        }
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The 6-digit code in a setup mail. */
export const codeIn = (mail: CapturedMail) => /Your code: (\d{6})/.exec(mail.raw)?.[1] ?? '';
