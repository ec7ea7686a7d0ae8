import type { FraudEvent } from '../../api/fraud.js';
import type { PromotionCodeView } from '../../api/promotion-codes.js';
import { button, confirmAction, h, show, table } from './dom.js';
import { formatCents, formatInstant } from './format.js';
import { say } from './money.js';
import type { Shell } from './shell.js';

/** A fraud event's evidence in words, without JSON. */
function evidenceText(e: FraudEvent): string {
  return Object.entries(e.evidence).map(([key, value]) => `${key}: ${String(value)}`).join(' · ');
}

/**
 * The dashboard's review queue (docs/fraud.md#held-commissions): the fraud events of held
 * commissions, each commission released or rejected with a click, through the API the CLI's fraud
 * commands call.
 */
export function reviewSection(shell: Shell, section: HTMLElement, programId: number): void {
  const { client } = shell;
  const status = h('div', { class: 'status', 'aria-live': 'polite' });
  const list = h('div', { id: 'held-commissions' });
  const act = (run: () => Promise<unknown>) => run().then(() => undefined, (error) => shell.fail(error, status));

  async function load(): Promise<void> {
    const events = await client.fraud.events(programId, 'held');
    const resolve = (verb: 'release' | 'reject', commissionId: number, amount: string) =>
      button(verb === 'release' ? 'Release' : 'Reject', () => act(async () => {
        // A rejection asks first, with a reason kept with the commission, as the commission list's does (docs/pages.md#money-actions-ask-first).
        const answer = verb === 'reject' ? await confirmAction(`Reject commission ${commissionId}?`, `${amount}. A rejected commission is never paid.`, 'Reject', { reason: true }) : { reason: '' };
        if (answer === null) return;
        await client.fraud[verb](programId, { commissionIds: [commissionId], reason: answer.reason || undefined });
        await load();
        say(status, `Commission ${commissionId} ${verb === 'release' ? 'released: pending until its hold date' : 'rejected'}.`);
      }), { class: verb === 'reject' ? 'secondary' : undefined, 'aria-label': `${verb === 'release' ? 'Release' : 'Reject'} held commission ${commissionId}` });
    const held = [...new Map(events.map((e) => [e.commissionId, e])).values()];
    show(
      list,
      table(
        'Held commissions and the rules that held them',
        [{ label: 'Commission', numeric: true }, { label: 'Partner' }, { label: 'Amount', numeric: true }, { label: 'Rules' }, { label: 'When' }, { label: 'Review' }],
        held.map((e) => [
          e.commissionId,
          `${e.partnerName} (#${e.partnerId})`,
          formatCents(e.amountCents, e.currency),
          events.filter((f) => f.commissionId === e.commissionId).map((f) => `${f.rule} (${f.action}): ${evidenceText(f)}`).join('; '),
          formatInstant(e.createdAt),
          h('span', { class: 'actions' }, resolve('release', e.commissionId, formatCents(e.amountCents, e.currency)), resolve('reject', e.commissionId, formatCents(e.amountCents, e.currency))),
        ]),
        'No commission is on hold. A fraud rule set to hold puts one here (partnerkit program update --fraud-… hold).',
        { id: 'held-list' },
      ),
    );
  }

  show(section, h('h2', {}, 'Review'), status, list);
  void act(load);
}

/**
 * The dashboard's promotion codes (docs/promotion-codes.md#codes): the program's codes by partner,
 * adding one for a partner and removing one, through the API the CLI's partner code commands call.
 */
export function codesSection(shell: Shell, section: HTMLElement, programId: number, partners: Map<number, string>): void {
  const { client } = shell;
  const status = h('div', { class: 'status', 'aria-live': 'polite' });
  const list = h('div', { id: 'code-list' });
  const act = (run: () => Promise<unknown>) => run().then(() => undefined, (error) => shell.fail(error, status));
  const code = h('input', { id: 'code-value', name: 'code', required: true, pattern: '[A-Za-z0-9_-]{1,64}', 'aria-describedby': 'code-hint' });
  const partner = h(
    'select',
    { id: 'code-partner', name: 'partner' },
    ...[...partners].map(([id, name]) => h('option', { value: String(id) }, `${name} (#${id})`)),
  );

  async function load(): Promise<void> {
    const codes = await client.codes.list(programId);
    const remove = (c: PromotionCodeView) =>
      button('Remove', () => act(async () => {
        await client.codes.remove(programId, c.code);
        await load();
        say(status, `Code ${c.code} removed: it attributes nothing new.`);
      }), { class: 'secondary', 'aria-label': `Remove code ${c.code}` });
    show(
      list,
      table(
        'Promotion codes',
        [{ label: 'Code' }, { label: 'Partner' }, { label: 'Stripe promotion code' }, { label: 'Added' }, { label: '' }],
        codes.map((c) => [c.code, `${c.partnerName} (#${c.partnerId})`, c.stripePromotionCode ?? '—', formatInstant(c.createdAt), remove(c)]),
        'No promotion codes yet. Add one for a partner above.',
      ),
    );
  }

  const add = button('Add code', () => act(async () => {
    const added = await client.codes.add(programId, { partnerId: Number(partner.value), code: code.value });
    code.value = '';
    await load();
    say(status, `Code ${added.code} added for ${added.partnerName}.`);
  }));
  show(
    section,
    h('h2', {}, 'Promotion codes'),
    h(
      'form',
      { class: 'actions', onsubmit: (e) => e.preventDefault() },
      h('label', { class: 'field', for: 'code-partner' }, h('span', {}, 'Partner'), partner),
      h('label', { class: 'field', for: 'code-value' }, h('span', {}, 'Code'), code),
      add,
    ),
    h('p', { id: 'code-hint', class: 'hint' }, '1–64 letters, digits, - or _; unique in the program in any case.'),
    status,
    list,
  );
  void act(load);
}
