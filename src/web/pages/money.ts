import { COMMISSION_STATUSES, EXPORT_FORMATS, type CommissionStatus, type ExportFormat } from '../../api/constants.js';
import type { Payout, PayoutPreview } from '../../api/payouts.js';
import { button, h, PAGE_SIZE, pager, select, show, table } from './dom.js';
import { formatCents, formatCount, formatInstant } from './format.js';
import type { Shell } from './shell.js';

/** Why a balance waits, in words (docs/refunds-and-payouts.md#balances-and-the-payout-preview). */
const WAIT_REASONS: Record<PayoutPreview['waiting'][number]['reason'], string> = {
  below_minimum: 'below the minimum payout',
  not_positive: 'not above zero',
  amount_too_large: 'too large to pay (over 2^53 − 1 cents)',
};

/**
 * Commissions and payouts on the dashboard (docs/pages.md#the-dashboard): the lists, the reviews and
 * the payout steps the CLI's commission and payout commands make, through the same API calls.
 */
export function moneySections(shell: Shell, parent: HTMLElement, programId: number, names: Map<number, string>, preview: PayoutPreview): void {
  const commissions = h('section', { id: 'commissions' });
  const payouts = h('section', { id: 'payouts' });
  show(parent, commissions, payouts);
  const partner = (id: number) => `${names.get(id) ?? 'Partner'} (#${id})`;
  const { client } = shell;

  let status: CommissionStatus | 'all' = 'pending';
  let offset = 0;
  const commissionStatus = h('div', { class: 'status', 'aria-live': 'polite' });
  async function loadCommissions(): Promise<void> {
    const { data: list, total } = await client.commissions.page(programId, { ...(status === 'all' ? {} : { status }), limit: PAGE_SIZE, offset });
    const review = (verb: 'approve' | 'reject', id: number) => act(commissionStatus, async () => {
      await (verb === 'approve' ? client.commissions.approve(programId, { ids: [id] }) : client.commissions.reject(programId, { ids: [id] }));
      await loadCommissions();
      await loadPayouts(await client.payouts.preview(programId));
      say(commissionStatus, `Commission ${id} ${verb === 'approve' ? 'approved' : 'rejected'}.`);
    });
    show(
      commissions,
      h('h2', {}, 'Commissions'),
      select('Status', [{ value: 'all', label: 'All' }, ...COMMISSION_STATUSES.map((s) => ({ value: s, label: s }))], status, (value) => {
        status = value as typeof status;
        offset = 0;
        void act(commissionStatus, loadCommissions);
      }, 'commission-status'),
      commissionStatus,
      table(
        `${formatCount(list.length)} of ${formatCount(total)} commissions`,
        [{ label: 'Id', numeric: true }, { label: 'Partner' }, { label: 'Sale', numeric: true }, { label: 'Type' }, { label: 'Amount', numeric: true }, { label: 'Status' }, { label: 'Created' }, { label: 'Hold until' }, { label: 'Review' }],
        list.map((c) => [
          c.id,
          partner(c.partnerId),
          c.saleId,
          c.type,
          formatCents(c.amountCents, c.currency),
          c.status,
          formatInstant(c.createdAt),
          formatInstant(c.holdUntil),
          c.status === 'pending'
            ? h('span', { class: 'actions' }, button('Approve', () => review('approve', c.id), { 'aria-label': `Approve commission ${c.id}` }), button('Reject', () => review('reject', c.id), { class: 'secondary', 'aria-label': `Reject commission ${c.id}` }))
            : '',
        ]),
        status === 'all'
          ? 'No commissions yet: each sale a partner brings creates one.'
          : `No ${status} commissions. Choose another status to see the others.`,
        { id: 'commission-list' },
      ),
      pager('commissions', offset, list.length, total, (to) => {
        offset = to;
        return act(commissionStatus, loadCommissions);
      }),
    );
  }

  const payoutStatus = h('div', { class: 'status', 'aria-live': 'polite' });
  async function loadPayouts(due: PayoutPreview): Promise<void> {
    const list = await client.payouts.list(programId);
    const reload = async () => loadPayouts(await client.payouts.preview(programId));
    const step = (label: string, id: number, run: (id: number) => Promise<Payout>, done: string) =>
      button(label, () => act(payoutStatus, async () => {
        await run(id);
        await reload();
        say(payoutStatus, `Payout ${id} ${done}.`);
      }), { 'aria-label': `${label} payout ${id}`, class: label === 'Cancel' ? 'secondary' : undefined });
    show(
      payouts,
      h('h2', {}, 'Payouts'),
      payoutStatus,
      table(
        'Due now (payout preview)',
        [{ label: 'Partner' }, { label: 'Amount', numeric: true }, { label: 'Commissions', numeric: true }],
        due.payouts.map((p) => [partner(p.partnerId), formatCents(p.amountCents, p.currency), formatCount(p.commissionCount)]),
        'Nothing is due: a balance is paid once its commissions are approved and it reaches the minimum payout.',
        { id: 'payout-preview' },
      ),
      due.waiting.length > 0
        ? table(
            'Waiting',
            [{ label: 'Partner' }, { label: 'Balance', numeric: true }, { label: 'Why' }],
            due.waiting.map((w) => [partner(w.partnerId), formatCents(w.balanceCents, w.currency), WAIT_REASONS[w.reason]]),
            '',
          )
        : '',
      button('Create payouts', () => act(payoutStatus, async () => {
        const batch = await client.payouts.create(programId);
        await reload();
        say(payoutStatus, batch.batchId === null ? 'Nothing was due.' : `Batch ${batch.batchId} created: ${batch.payouts.length} payout(s).`);
      }), { id: 'create-payouts', disabled: due.payouts.length === 0 }),
      table(
        'Payouts',
        [{ label: 'Id', numeric: true }, { label: 'Batch', numeric: true }, { label: 'Partner' }, { label: 'Amount', numeric: true }, { label: 'Status' }, { label: 'Created' }, { label: 'Paid' }, { label: 'Actions' }],
        list.map((p) => [
          p.id,
          p.batchId,
          partner(p.partnerId),
          formatCents(p.amountCents, p.currency),
          p.status,
          formatInstant(p.createdAt),
          formatInstant(p.paidAt),
          p.status === 'processing'
            ? h('span', { class: 'actions' }, step('Mark paid', p.id, client.payouts.markPaid, 'marked paid'), step('Cancel', p.id, client.payouts.cancel, 'canceled'))
            : '',
        ]),
        'No payouts yet: Create payouts pays what is due.',
        { id: 'payout-list' },
      ),
      ...exportButtons(list),
    );
  }

  /** A download per format of every batch with payouts to pay; PayPal and Wise files take one currency each. */
  function exportButtons(list: Payout[]): HTMLElement[] {
    const batches = new Map<number, Set<string>>();
    for (const p of list) if (p.status === 'processing') (batches.get(p.batchId) ?? batches.set(p.batchId, new Set()).get(p.batchId)!).add(p.currency);
    return [...batches].map(([batchId, currencies]) =>
      h(
        'p',
        { class: 'actions export' },
        `Batch ${batchId} export: `,
        ...EXPORT_FORMATS.flatMap((format) =>
          (format === 'csv' ? [undefined] : [...currencies]).map((currency) =>
            button(`${format.toUpperCase()}${currency ? ` (${currency})` : ''}`, () => act(payoutStatus, () => download(batchId, format, currency)), {
              'aria-label': `Download batch ${batchId} as ${format}${currency ? ` in ${currency}` : ''}`,
            }),
          ),
        ),
      ),
    );
  }

  async function download(batchId: number, format: ExportFormat, currency?: string): Promise<void> {
    const file = await client.payouts.export(batchId, { format, currency });
    const name = `payout-batch-${batchId}-${format}${currency ? `-${currency.toLowerCase()}` : ''}.csv`;
    const url = URL.createObjectURL(new Blob([file.file], { type: 'text/csv;charset=utf-8' }));
    const link = h('a', { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    const skipped = file.skipped.map((s) => `payout ${s.payoutId} (${s.reason === 'no_payout_email' ? 'no payout e-mail' : 'another payout method'})`);
    say(payoutStatus, `${name}: ${file.exportedPayoutIds.length} payout(s)${skipped.length > 0 ? `; skipped ${skipped.join(', ')}` : ''}.`);
  }

  /** Runs a step; its failure is shown in the section (or ends the session). */
  function act(where: HTMLElement, run: () => Promise<unknown>): Promise<void> {
    return run().then(() => undefined, (error) => shell.fail(error, where));
  }

  show(commissions, h('h2', {}, 'Commissions'), commissionStatus);
  show(payouts, h('h2', {}, 'Payouts'), payoutStatus);
  void act(commissionStatus, loadCommissions);
  void act(payoutStatus, () => loadPayouts(preview));
}

/** A status line under a section: what the last action did. */
export function say(where: HTMLElement, text: string): void {
  show(where, h('p', { role: 'status' }, text));
}
