import type { ApiKey, Member, ProgramSettings, UpdateSettingsRequest } from '../../api/admin.js';
import { APPROVAL_MODES, FRAUD_MODES, type FraudMode } from '../../api/constants.js';
import type { FraudRulesInput } from '../../api/fraud.js';
import { button, confirmAction, h, select, show, table } from './dom.js';
import { formatInstant } from './format.js';
import { say } from './money.js';
import type { Panel, View } from './nav.js';

/**
 * The Settings section (docs/pages.md#settings): the program's settings, its fraud rules, its
 * members and its API keys, through the member routes of docs/api.md#workspace-settings.
 */
export const SETTINGS_PANELS: Panel[] = [
  { id: 'program-settings', render: programSettings },
  { id: 'fraud-rules', render: fraudRules },
  { id: 'members', render: members },
  { id: 'api-keys', render: apiKeys },
];

const status = () => h('div', { class: 'status', 'aria-live': 'polite' });

/** A labelled field of the settings form. */
function field(label: string, control: HTMLElement & { id: string }, hint?: string): HTMLElement {
  return h('label', { class: 'field', for: control.id }, h('span', {}, label), control, hint ? h('small', {}, hint) : null);
}

/**
 * The settings `program update` sets that a member may change, in one form: Save sends the ones
 * that differ from what the API answered, and the API checks them.
 */
async function programSettings(view: View, into: HTMLElement): Promise<void> {
  const { client } = view.shell;
  const saved = status();
  show(into, h('h2', {}, 'Program settings'), saved);
  const form = (p: ProgramSettings): HTMLElement => {
    const number = (id: string, value: number | null, min = 0) => h('input', { type: 'number', id, name: id, min, step: 1, value: value ?? '' });
    const name = h('input', { id: 'setting-name', name: 'name', required: true, maxlength: 255, value: p.name });
    const percent = p.commission.type === 'percent';
    const before = p.commission.type === 'percent' ? p.commission.percent : p.commission.flatCents;
    const commissionType = h('select', { id: 'setting-commission-type', name: 'commissionType' },
      h('option', { value: 'percent', selected: percent }, 'Percent of each sale'), h('option', { value: 'flat', selected: !percent }, 'Flat amount per sale, in cents'));
    const commission = h('input', { type: 'number', id: 'setting-commission', name: 'commission', min: 0, step: 'any', value: before });
    const attribution = number('setting-window', p.attributionWindowDays, 1);
    const hold = number('setting-hold', p.holdDays);
    const approval = h('select', { id: 'setting-approval', name: 'approval' }, ...APPROVAL_MODES.map((m) => h('option', { value: m, selected: p.approval === m }, m === 'auto' ? 'Automatic, when the hold ends' : 'Manual review')));
    const minimum = number('setting-minimum', p.minPayoutCents);
    const landing = h('input', { type: 'url', id: 'setting-landing', name: 'landingUrl', value: p.landingUrl ?? '' });
    const open = h('input', { type: 'checkbox', id: 'setting-applications', name: 'applicationsOpen', checked: p.applicationsOpen });
    const auto = h('input', { type: 'checkbox', id: 'setting-auto-approve', name: 'autoApprove', checked: p.autoApprove });
    const changes = (): UpdateSettingsRequest => {
      const body: UpdateSettingsRequest = {};
      if (name.value !== p.name) body.name = name.value;
      const amount = Number(commission.value);
      if (commissionType.value !== p.commission.type || amount !== before) {
        if (commissionType.value === 'percent') body.commissionPercent = amount;
        else body.commissionFlatCents = amount;
      }
      if (Number(attribution.value) !== p.attributionWindowDays) body.attributionWindowDays = Number(attribution.value);
      if (Number(hold.value) !== p.holdDays) body.holdDays = Number(hold.value);
      if (approval.value !== p.approval) body.approval = approval.value as ProgramSettings['approval'];
      if (Number(minimum.value) !== p.minPayoutCents) body.minPayoutCents = Number(minimum.value);
      if (landing.value.trim() !== (p.landingUrl ?? '')) body.landingUrl = landing.value.trim() === '' ? null : landing.value.trim();
      if (open.checked !== p.applicationsOpen) body.applicationsOpen = open.checked;
      if (auto.checked !== p.autoApprove) body.autoApprove = auto.checked;
      return body;
    };
    const save = h('button', { type: 'submit' }, 'Save settings');
    return h(
      'form',
      {
        class: 'settings',
        id: 'settings-form',
        onsubmit: async (e) => {
          e.preventDefault();
          const body = changes();
          if (Object.keys(body).length === 0) return say(saved, 'Nothing changed.');
          save.disabled = true;
          try {
            const next = await client.workspace.updateSettings(view.programId, body);
            into.replaceChild(form(next), into.querySelector('form')!);
            say(saved, 'Settings saved: new sales and commissions follow them.');
          } catch (error) {
            view.shell.fail(error, saved);
          } finally {
            save.disabled = false;
          }
        },
      },
      field('Program name', name),
      h('div', { class: 'pair' }, field('Commission', commissionType), field('Amount', commission)),
      field('Attribution window, days', attribution),
      field('Hold, days', hold, 'A commission waits this long before it can be approved or paid.'),
      field('Approval', approval),
      field('Minimum payout, cents', minimum),
      field('Landing URL', landing, 'Where partner links send visitors.'),
      h('label', { class: 'check', for: 'setting-applications' }, open, 'The application page takes applications'),
      h('label', { class: 'check', for: 'setting-auto-approve' }, auto, 'Approve applications as they arrive'),
      h('p', { class: 'actions' }, save),
    );
  };
  into.append(form(await client.workspace.settings(view.programId)));
}

const RULES: Array<[keyof FraudRulesInput, string]> = [
  ['selfReferral', 'Self-referral (the customer’s e-mail is the partner’s)'],
  ['disposableEmail', 'Disposable e-mail address'],
  ['fastConversion', 'Sale right after the click'],
  ['refundRate', 'High refund rate'],
];
const MODES: Record<FraudMode, string> = { off: 'Off', flag: 'Flag: record, pay as usual', hold: 'Hold for review' };

/** Each fraud rule's mode (docs/fraud.md#the-rules): a choice is saved as it is made. */
async function fraudRules(view: View, into: HTMLElement): Promise<void> {
  const { client } = view.shell;
  const said = status();
  show(into, h('h2', {}, 'Fraud rules'), said);
  const current = (await client.workspace.settings(view.programId)).fraudRules;
  into.append(
    h(
      'div',
      { class: 'rules' },
      ...RULES.map(([rule, label]) =>
        select(label, FRAUD_MODES.map((m) => ({ value: m, label: MODES[m] })), current[rule], (mode) => {
          client.workspace.updateSettings(view.programId, { fraudRules: { [rule]: mode as FraudMode } }).then(
            () => say(said, `${label.split(' (')[0]}: ${MODES[mode as FraudMode].toLowerCase()}.`),
            (error) => view.shell.fail(error, said),
          );
        }, `fraud-${rule}`),
      ),
    ),
  );
}

/** The program's members: adding one by e-mail, removing one after a question. */
async function members(view: View, into: HTMLElement): Promise<void> {
  const { client } = view.shell;
  const said = status();
  const list = h('div', { id: 'member-list' });
  const email = h('input', { type: 'email', id: 'member-email', name: 'email', required: true, maxlength: 255, autocomplete: 'off' });
  const act = (run: () => Promise<unknown>) => run().then(() => undefined, (error) => view.shell.fail(error, said));
  async function load(): Promise<void> {
    const rows = await client.workspace.members(view.programId);
    const remove = (m: Member) =>
      button('Remove', () => act(async () => {
        const answer = await confirmAction(`Remove ${m.email}?`, 'They can no longer open this program, and every session of theirs ends now.', 'Remove');
        if (answer === null) return;
        await client.workspace.removeMember(view.programId, { email: m.email });
        await load();
        say(said, `${m.email} removed.`);
      }), { class: 'secondary', 'aria-label': `Remove ${m.email}` });
    show(
      list,
      table(
        'Members',
        [{ label: 'E-mail' }, { label: 'Status' }, { label: 'Since' }, { label: '' }],
        rows.map((m) => [m.email, m.status === 'active' ? 'active' : 'removed', formatInstant(m.status === 'active' ? m.createdAt : m.updatedAt), m.status === 'active' ? remove(m) : '']),
        'No members yet: add a colleague’s e-mail above.',
        { id: 'members-table' },
      ),
    );
  }
  const add = button('Add member', () => act(async () => {
    if (!email.reportValidity()) return;
    await client.workspace.addMember(view.programId, { email: email.value.trim() });
    say(said, `${email.value.trim().toLowerCase()} added: they sign in with a link sent to that address.`);
    email.value = '';
    await load();
  }));
  show(
    into,
    h('h2', {}, 'Members'),
    h('form', { class: 'actions', onsubmit: (e) => e.preventDefault() }, field('E-mail', email), add),
    said,
    list,
  );
  await act(load);
}

/** The program's API keys: creating one (shown once), retiring one after a question. */
async function apiKeys(view: View, into: HTMLElement): Promise<void> {
  const { client } = view.shell;
  const said = status();
  const list = h('div', { id: 'key-list' });
  const act = (run: () => Promise<unknown>) => run().then(() => undefined, (error) => view.shell.fail(error, said));
  async function load(): Promise<void> {
    const keys = await client.workspace.keys(view.programId);
    const retire = (k: ApiKey) =>
      button('Retire', () => act(async () => {
        const answer = await confirmAction(`Retire key ${k.prefix}…?`, 'Requests with it are refused from now on: replace it in your backend first.', 'Retire');
        if (answer === null) return;
        await client.workspace.retireKey(view.programId, k.id);
        await load();
        say(said, `Key ${k.prefix}… retired.`);
      }), { class: 'secondary', 'aria-label': `Retire key ${k.id}` });
    show(
      list,
      table(
        'API keys',
        [{ label: 'Id', numeric: true }, { label: 'Mode' }, { label: 'Begins with' }, { label: 'Status' }, { label: 'Created' }, { label: '' }],
        keys.map((k) => [k.id, k.mode, h('code', {}, `${k.prefix}…`), k.status, formatInstant(k.createdAt), k.status === 'active' ? retire(k) : '']),
        'No API keys: create one for your backend’s calls.',
        { id: 'keys-table' },
      ),
    );
  }
  const create = (test: boolean) =>
    button(test ? 'Create test key' : 'Create live key', () => act(async () => {
      const created = await client.workspace.createKey(view.programId, { test });
      await load();
      show(said, h('p', { role: 'status' }, `Key ${created.id} created. Copy it now, it is shown only once: `, h('code', { id: 'new-key' }, created.apiKey)));
    }), test ? { class: 'secondary' } : {});
  show(into, h('h2', {}, 'API keys'), h('p', { class: 'actions' }, create(false), create(true)), said, list);
  await act(load);
}
