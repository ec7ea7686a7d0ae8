import { COMMISSION_STATUSES, EXPORT_FORMATS, MAX_PAGE_LIMIT, type CommissionStatus, type ExportFormat } from '../../api/constants.js';
import type { Commission, Payout, PayoutPreview } from '../../api/payouts.js';
import { commissionsCsv } from '../../report-csv.js';
import { button, confirmAction, csvButton, h, PAGE_SIZE, pager, saveFile, select, show, table } from './dom.js';
import { formatCents, formatCount, formatInstant } from './format.js';
import type { View } from './nav.js';
import type { Shell } from './shell.js';

/** Why a balance waits, in words (docs/refunds-and-payouts.md#balances-and-the-payout-preview). */
const WAIT_REASONS: Record<PayoutPreview['waiting'][number]['reason'], string> = {
  below_minimum: 'below the minimum payout',
  not_positive: 'not above zero',
  amount_too_large: 'too large to pay (over 2^53 − 1 cents)',
};

/** A partner's name with its id, as the money lists write it. */
const partnerName = (names: Map<number, string>) => (id: number) => `${names.get(id) ?? 'Partner'} (#${id})`;

/**
 * The commission list of the dashboard's Commissions (docs/pages.md#commissions), or of one
 * partner on its page: filtered by a status, paged, each pending one approved or rejected, several
 * together, through the API calls of the CLI's commission commands.
 */
export async function commissionsPanel(view: View, commissions: HTMLElement, partnerId?: number): Promise<void> {
  const { shell, programId, now } = view;
  const { client } = shell;
  const partner = partnerName(await view.names());
  const act = (where: HTMLElement, run: () => Promise<unknown>) => acting(shell, where, run);
  const filter = partnerId === undefined ? {} : { partnerId };

  // A partner's page lists every status: its history, not a review queue.
  let status: CommissionStatus | 'all' = partnerId === undefined ? 'pending' : 'all';
  let offset = 0;
  const commissionStatus = h('div', { class: 'status', 'aria-live': 'polite' });
  async function loadCommissions(): Promise<void> {
    const { data: list, total } = await client.commissions.page(programId, { ...(status === 'all' ? {} : { status }), ...filter, limit: PAGE_SIZE, offset });
    /** Every commission of the status chosen, page by page: the CSV holds the whole list, not the page shown. */
    const everyCommission = async () => {
      const all: Commission[] = [];
      for (let from = 0; from === 0 || all.length < total; from += MAX_PAGE_LIMIT) {
        const { data } = await client.commissions.page(programId, { ...(status === 'all' ? {} : { status }), ...filter, limit: MAX_PAGE_LIMIT, offset: from });
        all.push(...data);
        if (data.length < MAX_PAGE_LIMIT) break;
      }
      return all;
    };
    const inHold = (c: Commission) => Date.parse(c.holdUntil) > now().getTime();
    const selected = new Set<number>();
    /** Approves or rejects commissions, asking first unless it is one approval (docs/pages.md#money-actions-ask-first). */
    const review = (verb: 'approve' | 'reject', chosen: Commission[]) => act(commissionStatus, async () => {
      const ask = verb === 'reject' || chosen.length > 1;
      const answer = ask ? await confirmAction(...reviewQuestion(verb, chosen, partner), { reason: verb === 'reject' }) : { reason: '' };
      if (answer === null) return;
      const ids = chosen.map((c) => c.id);
      await (verb === 'approve' ? client.commissions.approve(programId, { ids }) : client.commissions.reject(programId, { ids, reason: answer.reason || undefined }));
      await loadCommissions();
      say(commissionStatus, `${ids.length === 1 ? `Commission ${ids[0]}` : `${ids.length} commissions`} ${verb === 'approve' ? 'approved' : 'rejected'}.`);
    });
    const pending = list.filter((c) => c.status === 'pending');
    const approveSelected = button('Approve selected', () => review('approve', pending.filter((c) => selected.has(c.id))), { disabled: true });
    const rejectSelected = button('Reject selected', () => review('reject', pending.filter((c) => selected.has(c.id))), { class: 'secondary', disabled: true });
    const choose = (c: Commission) => (e: Event) => {
      if ((e.target as HTMLInputElement).checked) selected.add(c.id);
      else selected.delete(c.id);
      const chosen = pending.filter((p) => selected.has(p.id));
      // An approval that cannot succeed is not offered: one selected commission still in its hold disables it.
      approveSelected.disabled = chosen.length === 0 || chosen.some(inHold);
      rejectSelected.disabled = chosen.length === 0;
    };
    show(
      commissions,
      h('h2', {}, 'Commissions'),
      select('Status', [{ value: 'all', label: 'All' }, ...COMMISSION_STATUSES.map((s) => ({ value: s, label: s }))], status, (value) => {
        status = value as typeof status;
        offset = 0;
        void act(commissionStatus, loadCommissions);
      }, 'commission-status'),
      commissionStatus,
      h(
        'p',
        { class: 'actions bulk' },
        ...(pending.length > 0 ? [approveSelected, rejectSelected] : []),
        total > 0 ? csvButton('the commissions', () => `commissions-program-${programId}${partnerId === undefined ? '' : `-partner-${partnerId}`}-${status}.csv`, async () => commissionsCsv(await everyCommission(), await view.names())) : '',
      ),
      table(
        `${formatCount(list.length)} of ${formatCount(total)} commissions`,
        [{ label: 'Id', numeric: true }, { label: 'Partner' }, { label: 'Sale', numeric: true }, { label: 'Type' }, { label: 'Amount', numeric: true }, { label: 'Status' }, { label: 'Created' }, { label: 'Review' }],
        list.map((c) => [
          c.status === 'pending' ? h('label', { class: 'pick' }, h('input', { type: 'checkbox', 'aria-label': `Select commission ${c.id}`, onchange: choose(c) }), String(c.id)) : c.id,
          partner(c.partnerId),
          c.saleId,
          c.type,
          formatCents(c.amountCents, c.currency),
          c.status,
          formatInstant(c.createdAt),
          c.status !== 'pending'
            ? ''
            : h(
                'span',
                { class: 'actions' },
                inHold(c)
                  ? h('span', { class: 'hold' }, `in hold until ${formatInstant(c.holdUntil)}`)
                  : button('Approve', () => review('approve', [c]), { 'aria-label': `Approve commission ${c.id}` }),
                button('Reject', () => review('reject', [c]), { class: 'secondary', 'aria-label': `Reject commission ${c.id}` }),
              ),
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

  show(commissions, h('h2', {}, 'Commissions'), commissionStatus);
  await act(commissionStatus, loadCommissions);
}

/**
 * The dashboard's Payouts (docs/pages.md#payouts): what is due, creating payouts, the program's
 * payouts with their steps and the batches' files, through the API calls of the CLI's payout commands.
 */
export async function payoutsPanel(view: View, payouts: HTMLElement): Promise<void> {
  const { shell, programId } = view;
  const { client } = shell;
  const act = (where: HTMLElement, run: () => Promise<unknown>) => acting(shell, where, run);
  const payoutStatus = h('div', { class: 'status', 'aria-live': 'polite' });
  show(payouts, h('h2', {}, 'Payouts'), payoutStatus);
  const partners = await client.programPartners.list(programId);
  const partner = partnerName(new Map(partners.map((p) => [p.partnerId, p.name])));
  const methods = new Map(partners.map((p) => [p.partnerId, p.payoutMethod]));

  async function loadPayouts(due: PayoutPreview): Promise<void> {
    const list = await client.payouts.list(programId);
    const reload = async () => loadPayouts(await client.payouts.preview(programId));
    const step = (label: string, p: Payout, run: (id: number) => Promise<Payout>, done: string, consequence: string) =>
      button(label, () => act(payoutStatus, async () => {
        const id = p.id;
        if ((await confirmAction(`${label} payout ${id}?`, `${formatCents(p.amountCents, p.currency)} to ${partner(p.partnerId)}. ${consequence}`, label)) === null) return;
        await run(id);
        await reload();
        say(payoutStatus, `Payout ${id} ${done}.`);
      }), { 'aria-label': `${label} payout ${p.id}`, class: label === 'Cancel' ? 'secondary' : undefined });
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
        if ((await confirmAction(`Create ${formatCount(due.payouts.length)} payout${due.payouts.length === 1 ? '' : 's'}?`, `${totals(due.payouts.map((p) => [p.amountCents, p.currency]))} in all, to ${due.payouts.map((p) => partner(p.partnerId)).join(', ')}. Their commissions are then processing until each payout is marked paid or canceled.`, 'Create payouts')) === null) return;
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
            ? h(
                'span',
                { class: 'actions' },
                step('Mark paid', p, client.payouts.markPaid, 'marked paid', 'This cannot be undone: say so only once the money was sent.'),
                step('Cancel', p, client.payouts.cancel, 'canceled', 'Its commissions go back to approved and are paid in a later payout.'),
              )
            : '',
        ]),
        'No payouts yet: Create payouts pays what is due.',
        { id: 'payout-list' },
      ),
      ...exportButtons(list),
    );
  }

  /**
   * A download per format of every batch with payouts to pay: the CSV, and a PayPal or Wise file per
   * currency of the payouts to partners paid that way; a file none of them would fill is not offered.
   */
  function exportButtons(list: Payout[]): HTMLElement[] {
    const batches = new Map<number, Payout[]>();
    for (const p of list) if (p.status === 'processing') (batches.get(p.batchId) ?? batches.set(p.batchId, []).get(p.batchId)!).push(p);
    const currenciesPaidBy = (batch: Payout[], format: ExportFormat) => [...new Set(batch.filter((p) => methods.get(p.partnerId) === format).map((p) => p.currency))];
    return [...batches].map(([batchId, batch]) =>
      h(
        'p',
        { class: 'actions export' },
        `Batch ${batchId} export: `,
        ...EXPORT_FORMATS.flatMap((format) =>
          (format === 'csv' ? [undefined] : currenciesPaidBy(batch, format)).map((currency) =>
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
    saveFile(name, file.file);
    const skipped = file.skipped.map((s) => `payout ${s.payoutId} (${s.reason === 'no_payout_email' ? 'no payout e-mail' : 'another payout method'})`);
    say(payoutStatus, `${name}: ${file.exportedPayoutIds.length} payout(s)${skipped.length > 0 ? `; skipped ${skipped.join(', ')}` : ''}.`);
  }

  await act(payoutStatus, async () => loadPayouts(await client.payouts.preview(programId)));
}

/** Runs a step; its failure is shown in the section (or ends the session). */
function acting(shell: Shell, where: HTMLElement, run: () => Promise<unknown>): Promise<void> {
  return run().then(() => undefined, (error) => shell.fail(error, where));
}

/** Amounts in cents added up per currency, as text: "$35.05" or "$35.05 + €12.00". */
function totals(amounts: Array<[number, string]>): string {
  const sums = new Map<string, number>();
  for (const [cents, currency] of amounts) sums.set(currency, (sums.get(currency) ?? 0) + cents);
  return [...sums].map(([currency, cents]) => formatCents(cents, currency)).join(' + ');
}

/** What approving or rejecting `chosen` asks: the question, what it comes to, and the button. */
function reviewQuestion(verb: 'approve' | 'reject', chosen: Commission[], partner: (id: number) => string): [string, string, string] {
  const what = chosen.length === 1 ? `commission ${chosen[0].id}` : `${formatCount(chosen.length)} commissions`;
  const whose = [...new Set(chosen.map((c) => partner(c.partnerId)))].join(', ');
  const money = `${totals(chosen.map((c) => [c.amountCents, c.currency]))} to ${whose}.`;
  return verb === 'approve'
    ? [`Approve ${what}?`, `${money} Approved commissions are paid in the next payout.`, 'Approve']
    : [`Reject ${what}?`, `${money} A rejected commission is never paid; its clawbacks go with it.`, 'Reject'];
}

/** A status line under a section: what the last action did. */
export function say(where: HTMLElement, text: string): void {
  show(where, h('p', { role: 'status' }, text));
}
