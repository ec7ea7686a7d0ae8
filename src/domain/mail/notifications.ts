import { createHmac } from 'node:crypto';
import type { Sql } from '../../store/db.js';
import { centsText } from '../../money.js';
import type { CommissionRow } from '../../store/sales.js';
import * as mailStore from '../../store/mail.js';
import * as outbox from '../../store/outbox.js';
import type { DeliveryRow, EndpointRow } from '../../store/outbox.js';
import { shownUrl } from '../outbound/shown-url.js';
import type { Deps } from '../deps.js';
import { sameSecret, sha256 } from '../secrets.js';
import { escapeHtml, htmlMail, NOTIFICATION_KINDS, queueMail, type Mail, type NotificationKind } from './compose.js';

/** The key of unsubscribe links, from the admin token's hash: every instance of a database signs alike. */
export const unsubscribeKey = (adminTokenHash: string): string => sha256(`mail-unsubscribe:${adminTokenHash}`);

const signature = (key: string, email: string, kind: string) => createHmac('sha256', key).update(`${email}\n${kind}`).digest('base64url');

/** The one-click unsubscribe link of a kind of mail to an address (docs/mail.md#notifications-and-unsubscribing). */
export function unsubscribeUrl(publicUrl: string, key: string, email: string, kind: NotificationKind): string {
  const query = new URLSearchParams({ email, kind, sig: signature(key, email, kind) });
  return `${publicUrl}/mail/unsubscribe?${query}`;
}

/** What an unsubscribe link names, when its signature is this server's. */
export function verifiedUnsubscribe(key: string, query: { email?: string; kind?: string; sig?: string }): { email: string; kind: NotificationKind } | undefined {
  const { email, kind, sig } = query;
  if (!email || !kind || !sig || !(NOTIFICATION_KINDS as readonly string[]).includes(kind)) return undefined;
  return sameSecret(sig, signature(key, email, kind)) ? { email, kind: kind as NotificationKind } : undefined;
}

/** POST /mail/unsubscribe: switches the kind off for the address; POST /mail/subscribe, on again. */
export async function setSubscribed({ store, clock }: Deps, email: string, kind: NotificationKind, on: boolean): Promise<void> {
  await store.transaction((sql) => (on ? mailStore.resubscribe(sql, email, kind) : mailStore.unsubscribe(sql, email, kind, clock.now())));
}

/** A notification to send: its kind, program, recipients and text, one paragraph a line. */
export type Notification = { kind: NotificationKind; programId: number; to: Array<{ name: string | null; address: string }>; subject: string; lines: string[] };

/**
 * Queues notifications to each recipient who did not switch its kind off, in the caller's
 * transaction (docs/mail.md#notifications-and-unsubscribing): a text and an HTML part, and the
 * one-click unsubscribe link in the text, the HTML and the List-Unsubscribe headers. One lookup of
 * unsubscribed addresses per kind and one write, however many notifications a batch of sales
 * brings. Without mail settings nothing happens.
 */
export async function notify(deps: Deps, sql: Sql, notifications: readonly Notification[]): Promise<void> {
  const { mail } = deps;
  if (!mail) return;
  const mails: Mail[] = [];
  for (const kind of new Set(notifications.map((n) => n.kind))) {
    const ofKind = notifications.filter((n) => n.kind === kind);
    const addresses = [...new Set(ofKind.flatMap((n) => n.to.map((r) => r.address)))];
    if (addresses.length === 0) continue;
    const off = await mailStore.unsubscribed(sql, kind, addresses);
    for (const notification of ofKind) {
      for (const to of notification.to.filter((r) => !off.has(r.address))) {
        const url = unsubscribeUrl(mail.publicUrl, mail.unsubscribeKey, to.address, kind);
        mails.push({
          kind, programId: notification.programId, to, subject: notification.subject, unsubscribeUrl: url,
          text: `${notification.lines.join('\n\n')}\n\n--\nNo more of these mails: ${url}\n`,
          html: htmlMail(notification.subject, [
            ...notification.lines.map(escapeHtml),
            `<small><a href="${escapeHtml(url)}">No more of these mails</a></small>`,
          ]),
        });
      }
    }
  }
  await queueMail(deps, sql, mails);
}

/**
 * Mails each partner the commissions a batch of sales or leads created for them: the amount and the
 * program, never the customer (docs/mail.md#notifications-and-unsubscribing). Clawbacks of refunds
 * are not announced.
 */
export async function notifyCommissions(deps: Deps, sql: Sql, commissions: readonly CommissionRow[]): Promise<void> {
  if (!deps.mail || commissions.length === 0) return;
  const recipients = new Map((await mailStore.enrollmentRecipients(sql, [...new Set(commissions.map((c) => c.partner_program_id))])).map((r) => [r.enrollment_id, r]));
  await notify(deps, sql, commissions.map((commission) => {
    const to = recipients.get(commission.partner_program_id)!;
    const amount = `${centsText(commission.amount_cents)} ${commission.currency}`;
    return {
      kind: 'commission_created', programId: commission.program_id, to: [{ name: to.name, address: to.email }],
      subject: `You earned ${amount} from ${to.program_name}`,
      lines: [
        `Hello ${to.name},`,
        `${commission.type === 'lead' ? 'a customer who signed up' : 'a sale'} through your partner link earned you a commission of ${amount} in ${to.program_name} (commission ${commission.id}, held until ${commission.hold_until.toISOString().slice(0, 10)}).`,
      ],
    };
  }));
}

/**
 * Tells each active member of the programs concerned that a webhook endpoint was disabled (it
 * answered 410) or that events to one failed for good (their last attempt failed): one mail per
 * endpoint, naming its URL without credentials and the events (docs/mail.md#notifications-and-unsubscribing).
 */
export async function notifyWebhookTrouble(deps: Deps, sql: Sql, disabled: readonly EndpointRow[], failed: readonly DeliveryRow[]): Promise<void> {
  if (!deps.mail || (disabled.length === 0 && failed.length === 0)) return;
  const memberLists = new Map<number, Array<{ name: null; address: string }>>();
  const members = async (programId: number) => {
    if (!memberLists.has(programId)) memberLists.set(programId, (await mailStore.activeMemberEmails(sql, programId)).map((address) => ({ name: null, address })));
    return memberLists.get(programId)!;
  };
  const notices: Notification[] = [];
  for (const endpoint of disabled) {
    notices.push({
      kind: 'webhook_disabled', programId: endpoint.program_id, to: await members(endpoint.program_id),
      subject: `Webhook endpoint ${endpoint.id} was disabled`,
      lines: [
        `The webhook endpoint ${endpoint.id} (${shownUrl(endpoint.url)}) answered 410 Gone and was disabled: it gets no more events.`,
        `Turn it on again with: partnerkit webhook endpoint update --endpoint ${endpoint.id} --enabled`,
      ],
    });
  }
  const endpoints = failed.length === 0 ? [] : await outbox.findEndpoints(sql, [...new Set(failed.map((d) => d.target_id))]);
  const messages = new Map((failed.length === 0 ? [] : await outbox.findMessages(sql, [...new Set(failed.map((d) => d.message_id))])).map((m) => [m.id, m]));
  for (const endpoint of endpoints) {
    const events = failed.filter((d) => d.target_id === endpoint.id).map((d) => messages.get(d.message_id)!);
    notices.push({
      kind: 'webhook_failed', programId: endpoint.program_id, to: await members(endpoint.program_id),
      subject: `Webhook events to endpoint ${endpoint.id} failed for good`,
      lines: [
        `These events to the webhook endpoint ${endpoint.id} (${shownUrl(endpoint.url)}) failed on every attempt and will not be tried again:`,
        ...events.map((m) => `${m.ref} (${m.type})`),
        `Send one again with: partnerkit webhook redeliver --event ${events[0].ref} --endpoint ${endpoint.id}`,
      ],
    });
  }
  await notify(deps, sql, notices);
}
