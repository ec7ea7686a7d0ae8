import type { GroupView, Preview } from '../../api/groups.js';
import { renewalsText } from '../../api/constants.js';
import { button, h, show, table } from './dom.js';
import { formatCents, formatInstant } from './format.js';
import { say } from './money.js';
import type { Shell } from './shell.js';

/** A group's sale reward in words: its own, or the program's. */
function rewardText(g: GroupView): string {
  if (g.commission === null) return "The program's";
  return g.commission.type === 'percent' ? `${g.commission.percent} %` : `${formatCents(g.commission.flatCents, 'USD')} a sale`;
}

/** Where a group's threshold leads, in words. */
function thresholdText(g: GroupView, names: Map<number, string>): string {
  if (g.threshold === null) return '—';
  const amount = g.threshold.metric === 'revenue' ? `${formatCents(g.threshold.value, 'USD')} revenue` : `${g.threshold.value} conversions`;
  return `${amount} (${g.threshold.window === 'all' ? 'all time' : '30 days'}) → ${names.get(g.nextGroupId!) ?? `#${g.nextGroupId}`}`;
}

/** A labelled input of the groups section. */
const field = (label: string, input: HTMLElement) => h('label', { class: 'field', for: input.id }, h('span', {}, label), input);

/**
 * The dashboard's partner groups (docs/groups.md): the groups with their rewards and thresholds,
 * adding one, putting a partner in one, the partners' moves, and a "what if" panel that previews a
 * reward over the period's sales (docs/groups.md#rule-preview), through the API the CLI's group
 * and program preview commands call.
 */
export function groupsSection(shell: Shell, section: HTMLElement, programId: number, partners: Map<number, string>): void {
  const { client } = shell;
  const status = h('div', { class: 'status', 'aria-live': 'polite' });
  const list = h('div', { id: 'group-list' });
  const moves = h('div', { id: 'group-moves' });
  const whatIf = h('div', { id: 'what-if-result' });
  const act = (run: () => Promise<unknown>) => run().then(() => undefined, (error) => shell.fail(error, status));
  const name = h('input', { id: 'group-name', name: 'group-name', required: true, maxlength: 255 });
  const percent = h('input', { id: 'group-percent', name: 'group-percent', type: 'number', min: 0.01, max: 100, step: 0.01 });
  const lead = h('input', { id: 'group-lead', name: 'group-lead', type: 'number', min: 0, step: 1 });
  const partner = h('select', { id: 'group-partner', name: 'group-partner' }, ...[...partners].map(([id, n]) => h('option', { value: String(id) }, `${n} (#${id})`)));
  const target = h('select', { id: 'group-target', name: 'group-target' });
  const period = h('select', { id: 'what-if-period', name: 'what-if-period' }, ...['7d', '30d', '90d', 'all'].map((p) => h('option', { value: p, selected: p === '90d' }, p)));
  const whatIfPercent = h('input', { id: 'what-if-percent', name: 'what-if-percent', type: 'number', min: 0.01, max: 100, step: 0.01, required: true });
  // Empty: the program's recurring months.
  const whatIfMonths = h('input', { id: 'what-if-months', name: 'what-if-months', type: 'number', min: 0, max: 1200, step: 1, placeholder: "program's" });
  let names = new Map<number, string>();

  async function load(): Promise<void> {
    const [groups, moved] = await Promise.all([client.groups.list(programId), client.groups.moves(programId)]);
    names = new Map(groups.map((g) => [g.id, g.name]));
    show(target, ...groups.map((g) => h('option', { value: String(g.id) }, g.name)));
    show(
      list,
      table(
        'Partner groups',
        [{ label: 'Group' }, { label: 'Sale reward' }, { label: 'Hold days', numeric: true }, { label: 'Lead reward', numeric: true }, { label: 'Moves on at' }, { label: 'Partners', numeric: true }],
        groups.map((g) => [
          `${g.name}${g.isDefault ? ' (default)' : ''}`, rewardText(g), g.holdDays, g.leadRewardCents === null ? '—' : formatCents(g.leadRewardCents, 'USD'), thresholdText(g, names), g.partners,
        ]),
        "No groups yet: every partner earns the program's reward. Add one above.",
      ),
    );
    show(
      moves,
      table(
        'Moves between groups, newest first',
        [{ label: 'When' }, { label: 'Partner' }, { label: 'From' }, { label: 'To' }, { label: 'Why' }],
        moved.slice(0, 50).map((m) => [
          formatInstant(m.createdAt), partners.get(m.partnerId) ?? `#${m.partnerId}`, m.fromGroupId === null ? '—' : (names.get(m.fromGroupId) ?? `#${m.fromGroupId}`),
          names.get(m.toGroupId) ?? `#${m.toGroupId}`, m.reason === 'threshold' ? `Threshold reached by sale ${m.saleId}` : 'By a member',
        ]),
        'No moves yet. A partner moves when a sale reaches its group’s threshold, or when you put it in a group.',
      ),
    );
  }

  function showPreview(preview: Preview): void {
    show(
      whatIf,
      table(
        `What ${preview.rule.type === 'percent' ? `${preview.rule.percent} %` : 'a flat reward'}, ${renewalsText(preview.recurringMonths)}, would have paid, ${preview.from.slice(0, 10)} – ${preview.to.slice(0, 10)}`,
        [{ label: 'Partner' }, { label: 'Sales', numeric: true }, { label: 'Revenue', numeric: true }, { label: 'Earned', numeric: true }, { label: 'What if', numeric: true }],
        [...preview.partners, { partnerId: 0, name: 'Total', ...preview.totals }].filter(() => preview.partners.length > 0).map((p) => [
          p.partnerId === 0 ? p.name : `${p.name} (#${p.partnerId})`, p.sales, formatCents(p.revenueCents, 'USD'), formatCents(p.actualCents, 'USD'), formatCents(p.previewCents, 'USD'),
        ]),
        'No sales in the period: nothing to compare.',
      ),
    );
  }

  const add = button('Add group', () => act(async () => {
    const added = await client.groups.add(programId, {
      name: name.value.trim(),
      commissionPercent: percent.value === '' ? undefined : Number(percent.value),
      leadRewardCents: lead.value === '' ? undefined : Number(lead.value),
    });
    name.value = '';
    await load();
    say(status, `Group ${added.name} added.`);
  }));
  const put = button('Put in group', () => act(async () => {
    const result = await client.groups.setPartner(programId, Number(partner.value), Number(target.value));
    await load();
    say(status, result.move ? `${partners.get(result.partnerId)} is in ${names.get(result.groupId)} from its next sale on.` : 'The partner is in that group already.');
  }));
  const preview = button('Preview', () => act(async () => {
    const recurringMonths = whatIfMonths.value === '' ? undefined : Number(whatIfMonths.value);
    showPreview(await client.groups.preview(programId, { period: period.value, commissionPercent: Number(whatIfPercent.value), recurringMonths }));
  }));
  const form = (...children: HTMLElement[]) => h('form', { class: 'actions', onsubmit: (e) => e.preventDefault() }, ...children);
  show(
    section,
    h('h2', {}, 'Groups'),
    form(field('Name', name), field('Sale reward (%)', percent), field('Lead reward (cents)', lead), add),
    form(field('Partner', partner), field('Group', target), put),
    status,
    list,
    moves,
    h('h3', {}, 'What if'),
    h('p', { class: 'hint' }, "What a percentage would have paid over the period's sales, refunds taken off, beside what they earned; renewals earn for the months given (0: none), or the program's. Nothing is changed."),
    form(field('Period', period), field('Percentage', whatIfPercent), field('Renewals earn for (months)', whatIfMonths), preview),
    whatIf,
  );
  void act(load);
}
