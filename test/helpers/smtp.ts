import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { onTestFinished } from 'vitest';
import { unsubscribeKey } from '../../src/domain/mail/notifications.js';
import { MailChannel, smtpTransport } from '../../src/domain/mail/sender.js';
import { DEFAULT_WORKER_SETTINGS, DeliveryWorker } from '../../src/domain/outbound/worker.js';
import type { AppDeps } from '../../src/http/deps.js';

/** A mail the catcher accepted: as mailparser reads it, with the SMTP envelope and the raw header block. */
export type Caught = ParsedMail & { envelope: { from: string; to: string[] }; rawHeaders: string };

/**
 * A real SMTP server on 127.0.0.1 that keeps every mail it accepts (docs/testing.md#mail): it can be
 * stopped (connections refused) and started again on the same port, or told to refuse with a
 * reply code. The caller stops it.
 */
export async function smtpCatcher() {
  const mails: Caught[] = [];
  let refuseWith: number | null = null;
  let waiters: Array<() => void> = [];
  let server: SMTPServer | undefined;
  let port = 0;

  const start = async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', async () => {
          if (refuseWith !== null) return callback(Object.assign(new Error('Try again later'), { responseCode: refuseWith }));
          const raw = Buffer.concat(chunks);
          const parsed = await simpleParser(raw);
          const envelope = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          };
          const text = raw.toString('utf8');
          mails.push(Object.assign(parsed, { envelope, rawHeaders: text.slice(0, text.indexOf('\r\n\r\n')) }));
          for (const wake of waiters) wake();
          waiters = [];
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.server.address() as AddressInfo).port;
  };
  const stop = async () => {
    const closing = server;
    server = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  await start();
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    start,
    stop,
    /** Refuses every mail with `code` (451: try again later) until called with null. */
    refuse(code: number | null) {
      refuseWith = code;
    },
    /** Resolves once `n` mails have arrived. */
    async waitFor(n: number): Promise<Caught[]> {
      while (mails.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return mails;
    },
  };
}

/** The From of the test mails. */
export const MAIL_FROM = 'Acme Partners <partners@acme.example>';
/** The public URL links in test mails point at. */
export const PUBLIC_URL = 'https://partners.acme.example';

/**
 * Mail set up on a test app as `serve --smtp-url … --mail-from … --public-url …` sets it up: a
 * catcher, and a delivery worker with the mail channel whose `runDue` sends what is due by the
 * app's clock. Everything is stopped when the test finishes.
 */
export async function mailingApp(deps: AppDeps) {
  const smtp = await smtpCatcher();
  onTestFinished(smtp.stop);
  deps.mail = { from: MAIL_FROM, publicUrl: PUBLIC_URL, unsubscribeKey: unsubscribeKey(deps.adminTokenHash) };
  const transport = await smtpTransport(smtp.url);
  onTestFinished(() => transport.close());
  const worker = new DeliveryWorker(deps, DEFAULT_WORKER_SETTINGS, [new MailChannel(deps, transport)]);
  onTestFinished(() => worker.stop());
  return { smtp, worker };
}
