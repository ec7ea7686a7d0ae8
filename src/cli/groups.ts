import { Flags } from '@oclif/core';
import { renewalsText } from '../api/constants.js';
import type { GroupMoveView, GroupView, Preview, UpdateGroupRequest } from '../api/index.js';
import { commissionText, formatCents, formatWhen, renderTable } from './output.js';

/**
 * A group's settings as flags, shared by `group add` and `group update` (only the flags given are
 * sent; the server checks them, docs/groups.md#errors).
 */
export const groupSettingFlags = {
  name: Flags.string({ description: 'group name, unique in the program' }),
  'commission-percent': Flags.string({ description: 'sale reward: a percentage of each sale', exclusive: ['commission-flat-cents'] }),
  'commission-flat-cents': Flags.integer({ description: 'sale reward: a flat amount per sale, in cents', min: 0 }),
  'hold-days': Flags.integer({ description: "days a commission stays pending (default: the program's)", min: 0 }),
  'recurring-months': Flags.integer({ description: 'months of renewals that earn commission (0: first payment only)', min: 0, exclusive: ['every-renewal'] }),
  'every-renewal': Flags.boolean({ description: 'every renewal earns commission' }),
  'lead-reward-cents': Flags.integer({ description: 'a flat commission per customer who signs up, in cents', min: 0 }),
  default: Flags.boolean({ description: "make it the program's default group" }),
  'next-group': Flags.integer({ description: 'the group a partner moves to on reaching the threshold', min: 1 }),
  threshold: Flags.integer({ description: 'the threshold: conversions, or revenue in cents', min: 1 }),
  'threshold-metric': Flags.string({ description: 'what the threshold counts', options: ['conversions', 'revenue'] }),
  'threshold-window': Flags.string({ description: 'over which window (default 30d)', options: ['30d', 'all'] }),
};

type GroupFlags = {
  name?: string;
  'commission-percent'?: string;
  'commission-flat-cents'?: number;
  'hold-days'?: number;
  'recurring-months'?: number;
  'every-renewal'?: boolean;
  'lead-reward-cents'?: number;
  default?: boolean;
  'next-group'?: number;
  threshold?: number;
  'threshold-metric'?: string;
  'threshold-window'?: string;
};

/** The request fields of the flags given; a flag not given is left out. */
export function groupSettings(flags: GroupFlags): UpdateGroupRequest {
  const thresholdGiven = flags.threshold !== undefined || flags['threshold-metric'] !== undefined;
  return {
    name: flags.name,
    commissionPercent: flags['commission-percent'] === undefined ? undefined : Number(flags['commission-percent']),
    commissionFlatCents: flags['commission-flat-cents'],
    holdDays: flags['hold-days'],
    recurringMonths: flags['every-renewal'] ? null : flags['recurring-months'],
    leadRewardCents: flags['lead-reward-cents'],
    default: flags.default ? true : undefined,
    nextGroupId: flags['next-group'],
    threshold: thresholdGiven
      ? ({ metric: flags['threshold-metric'], value: flags.threshold, window: flags['threshold-window'] ?? '30d' } as UpdateGroupRequest['threshold'])
      : undefined,
  };
}

/** A group's sale reward in words: its own, or the program's. */
const rewardText = (g: GroupView) => (g.commission === null ? "program's" : commissionText(g.commission));

/** A group's threshold in words: `10 conversions/30d → #3`. */
function moveText(g: GroupView): string | null {
  if (g.threshold === null) return null;
  const amount = g.threshold.metric === 'revenue' ? `${formatCents(g.threshold.value)} revenue` : `${g.threshold.value} conversions`;
  return `${amount}/${g.threshold.window} → #${g.nextGroupId}`;
}

/** Groups, one line each. */
export function renderGroups(groups: GroupView[], empty: string): string {
  return renderTable(
    [
      { header: 'id', value: (g) => String(g.id) },
      { header: 'name', value: (g) => `${g.name}${g.isDefault ? ' (default)' : ''}`, shrink: 'end' },
      { header: 'reward', value: rewardText, shrink: 'end' },
      { header: 'hold', value: (g) => `${g.holdDays} d` },
      { header: 'lead', value: (g) => (g.leadRewardCents === null ? null : formatCents(g.leadRewardCents)) },
      { header: 'moves on at', value: moveText, shrink: 'end' },
      { header: 'partners', value: (g) => String(g.partners) },
    ],
    groups,
    { empty },
  );
}

/** Group moves, newest first, one line each. */
export function renderMoves(moves: GroupMoveView[], now: Date, empty: string): string {
  return renderTable(
    [
      { header: 'when', value: (m) => formatWhen(m.createdAt, now) },
      { header: 'partner', value: (m) => `#${m.partnerId}` },
      { header: 'from', value: (m) => (m.fromGroupId === null ? null : `#${m.fromGroupId}`) },
      { header: 'to', value: (m) => `#${m.toGroupId}` },
      { header: 'why', value: (m) => (m.reason === 'threshold' ? `threshold, sale #${m.saleId}` : 'by a member'), shrink: 'end' },
    ],
    moves,
    { empty },
  );
}

/** A rule preview: what it applied, then one line per partner and the totals. */
export function renderPreview(preview: Preview): string {
  const head = `${commissionText(preview.rule)}, ${renewalsText(preview.recurringMonths)}, over the sales of ${preview.period} (${preview.from.slice(0, 10)} – ${preview.to.slice(0, 10)}, UTC days)`;
  const total = { partnerId: 0, name: 'Total', ...preview.totals };
  const table = renderTable(
    [
      { header: 'partner', value: (p) => (p.partnerId === 0 ? p.name : `${p.name} (#${p.partnerId})`), shrink: 'end' },
      { header: 'sales', value: (p) => String(p.sales), align: 'right' },
      { header: 'revenue', value: (p) => formatCents(p.revenueCents), align: 'right' },
      { header: 'earned', value: (p) => formatCents(p.actualCents), align: 'right' },
      { header: 'preview', value: (p) => formatCents(p.previewCents), align: 'right' },
    ],
    preview.partners.length === 0 ? [] : [...preview.partners, total],
    { empty: 'No sales in the period: nothing to compare.' },
  );
  return `${head}\n${table}`;
}
