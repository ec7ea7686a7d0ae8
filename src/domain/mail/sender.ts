import type { Transporter } from 'nodemailer';
import * as outbox from '../../store/outbox.js';
import type { DeliveryRow, DeliveryUpdate, MessageRow } from '../../store/outbox.js';
import type { Deps } from '../deps.js';
import type { OutboxChannel } from '../outbound/worker.js';
import { batched } from '../write-batcher.js';
import type { StoredMail } from './compose.js';

/** After each of the first failed attempts, the wait before the next one; then FAILED_EVERY (docs/mail.md#retries). */
export const MAIL_RETRY_SECONDS = [5, 15, 30, 60] as const;
/** The wait between attempts once the first ones have failed. */
export const MAIL_RETRY_EVERY_SECONDS = 300;
/** How long after it was written a mail is tried before it is `failed` for good. */
export const MAIL_GIVE_UP_SECONDS = 24 * 3600;
/** How long one SMTP step (connecting, the greeting, any answer) may take. */
export const SMTP_TIMEOUT_MS = 10_000;
/** Mails one claim takes at most: one SMTP server takes them all, so few at a time. */
const CLAIM_LIMIT = 16;
/** Characters of the server's answer kept in the delivery log. */
const RESPONSE_CHARS = 1024;

/** The transport of an SMTP URL: smtp:// (STARTTLS when offered) or smtps://, with the user and password in the URL. */
export async function smtpTransport(url: string): Promise<Transporter> {
  const { default: nodemailer } = await import('nodemailer');
  return nodemailer.createTransport({ url, connectionTimeout: SMTP_TIMEOUT_MS, greetingTimeout: SMTP_TIMEOUT_MS, socketTimeout: SMTP_TIMEOUT_MS });
}

/** The delivery after an attempt at `at` (docs/mail.md#retries): 5 s, 15 s, 30 s, 1 min, then every 5 min until a day after it was written. */
export function afterMailAttempt(delivery: DeliveryRow, ok: boolean, at: Date): DeliveryUpdate {
  const attempts = delivery.attempts + 1;
  if (ok) return { id: delivery.id, status: 'delivered', attempts, next_attempt_at: null };
  const wait = MAIL_RETRY_SECONDS[attempts - 1] ?? MAIL_RETRY_EVERY_SECONDS;
  const next = new Date(at.getTime() + wait * 1000);
  if (next.getTime() > delivery.created_at.getTime() + MAIL_GIVE_UP_SECONDS * 1000) return { id: delivery.id, status: 'failed', attempts, next_attempt_at: null };
  return { id: delivery.id, status: 'pending', attempts, next_attempt_at: next };
}

type Result = { attempt: Omit<outbox.AttemptRow, 'id'>; update: DeliveryUpdate };

const record = batched(async (deps: Deps, sql, results: Result[]) => {
  const nextId = await deps.store.idAllocator(sql, { outbox_attempts: results.length });
  await outbox.recordAttempts(sql, results.map((r) => ({ id: nextId('outbox_attempts'), ...r.attempt })), results.map((r) => r.update));
  return results.map(() => undefined);
});

/** The SMTP reply code at the start of a server's answer (`250 2.0.0 OK`), if any. */
const replyCode = (answer: string | undefined): number | null => {
  const code = /^(\d{3})/.exec(answer ?? '')?.[1];
  return code === undefined ? null : Number(code);
};

/**
 * The outbox's mail channel (docs/mail.md#delivery): the delivery worker asks it to claim due mail
 * deliveries, each sent through SMTP and recorded as an attempt like a webhook's. A mail the server
 * accepted is recorded `delivered` and never sent again; a refusal, a timeout or a server that is
 * down is tried again on the mail schedule.
 */
export class MailChannel implements OutboxChannel {
  constructor(
    private readonly deps: Deps,
    private readonly transport: Transporter,
  ) {}

  async claim(base: Pick<outbox.Claim, 'now' | 'held' | 'lease'>, claimIn: (claim: outbox.Claim) => Promise<DeliveryRow[]>): Promise<Array<{ id: number; sent: Promise<void> }>> {
    const deliveries = await claimIn({ ...base, limit: CLAIM_LIMIT, channel: 'mail', busyTargets: [] });
    if (deliveries.length === 0) return [];
    const messages = await this.deps.store.read((sql) => outbox.findMessages(sql, [...new Set(deliveries.map((d) => d.message_id))]));
    const byId = new Map(messages.map((m) => [m.id, m]));
    // Recorded even while the worker stops: a mail the server accepted must not be sent again.
    return deliveries.map((d) => ({ id: d.id, sent: this.send(d, byId.get(d.message_id)!).then((result) => record(this.deps, result)) }));
  }

  private async send(delivery: DeliveryRow, message: MessageRow): Promise<Result> {
    const mail = JSON.parse(message.body) as StoredMail;
    const at = this.deps.clock.now();
    const started = performance.now();
    let answer: { ok: boolean; code: number | null; error: string | null; response: string | null };
    try {
      const info = await this.transport.sendMail({
        from: mail.from,
        to: mail.to.name === null ? mail.to.address : { name: mail.to.name, address: mail.to.address },
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // The same Message-ID on every attempt: a receiver can tell a mail it already has.
        messageId: `<${message.ref}@partnerkit>`,
        headers: mail.unsubscribeUrl ? { 'List-Unsubscribe': `<${mail.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {},
      });
      answer = { ok: true, code: replyCode(info.response), error: null, response: info.response?.slice(0, RESPONSE_CHARS) ?? null };
    } catch (error) {
      const e = error as Error & { responseCode?: number; response?: string };
      answer = { ok: false, code: e.responseCode ?? null, error: e.message.slice(0, RESPONSE_CHARS), response: e.response?.slice(0, RESPONSE_CHARS) ?? null };
    }
    return {
      attempt: {
        delivery_id: delivery.id, attempted_at: at, status_code: answer.code, error: answer.error, duration_ms: Math.round(performance.now() - started),
        response: answer.response,
      },
      update: afterMailAttempt(delivery, answer.ok, at),
    };
  }
}
