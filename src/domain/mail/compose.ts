import type { Sql } from '../../store/db.js';
import * as outbox from '../../store/outbox.js';
import type { Deps } from '../deps.js';
import { announceDue } from '../outbound/events.js';
import { randomToken } from '../secrets.js';

/** The kinds of mail partnerkit sends (docs/mail.md#the-outbox). */
/** Notifications, each switchable per recipient (docs/mail.md#notifications-and-unsubscribing). */
export const NOTIFICATION_KINDS = ['commission_created', 'partner_applied', 'payout_paid', 'webhook_disabled', 'webhook_failed'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export type MailKind = 'sign_in' | 'application_approved' | NotificationKind;

/** A mail to one person, rendered: what is stored in the outbox and sent on every attempt. */
export type Mail = {
  kind: MailKind;
  /** The program it is about; 0 when it is about none (a sign-in link). */
  programId: number;
  to: { name: string | null; address: string };
  subject: string;
  text: string;
  html: string;
  /** The one-click unsubscribe link of a notification (RFC 8058). */
  unsubscribeUrl?: string;
};

/** A stored mail's body: the mail with its From, as the sender reads it back. */
export type StoredMail = Omit<Mail, 'kind' | 'programId'> & { from: string };

/**
 * One line: a CR or LF in a name or a subject could start a header of its own, so every line break
 * becomes a space before anything reaches a header (docs/mail.md#headers).
 */
export const oneLine = (value: string): string => value.replace(/[\r\n\u0085\u2028\u2029]+/g, ' ');

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML part: names and messages come from people and are never markup. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** A simple HTML document around paragraphs already escaped. */
export function htmlMail(title: string, paragraphs: string[]): string {
  const body = paragraphs.map((p) => `<p>${p}</p>`).join('\n');
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body>\n${body}\n</body></html>\n`;
}

/**
 * Writes mails into the outbox inside the caller's transaction (docs/mail.md#the-outbox): each a
 * message of channel `mail` with one delivery, due now, committed or rolled back with the change
 * that caused it. Without mail settings nothing is written.
 */
export async function queueMail({ store, clock, mail }: Deps, sql: Sql, mails: readonly Mail[]): Promise<void> {
  if (!mail || mails.length === 0) return;
  const now = clock.now();
  const nextId = await store.idAllocator(sql, { outbox_messages: mails.length, outbox_deliveries: mails.length });
  const messages: outbox.MessageRow[] = [];
  const deliveries: outbox.DeliveryRow[] = [];
  for (const m of mails) {
    const id = nextId('outbox_messages');
    const stored: StoredMail = {
      from: mail.from,
      to: { name: m.to.name === null ? null : oneLine(m.to.name), address: m.to.address },
      subject: oneLine(m.subject),
      text: m.text,
      html: m.html,
      unsubscribeUrl: m.unsubscribeUrl,
    };
    messages.push({ id, channel: 'mail', program_id: m.programId, type: m.kind, ref: randomToken('mail_', 16), body: JSON.stringify(stored), created_at: now, targets: null });
    deliveries.push({
      id: nextId('outbox_deliveries'), message_id: id, channel: 'mail', target_id: 0, status: 'pending', attempts: 0, next_attempt_at: now,
      lease_owner: null, lease_until: null, created_at: now,
    });
  }
  await outbox.appendMessages(sql, messages);
  await outbox.appendDeliveries(sql, deliveries);
  announceDue(store, sql);
}
