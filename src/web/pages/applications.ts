import type { Application } from '../../api/applications.js';
import { button, h, show, table } from './dom.js';
import { formatInstant } from './format.js';
import { say } from './money.js';
import type { Shell } from './shell.js';

/**
 * The dashboard's Applications section (docs/applications.md#deciding): a program's pending
 * applications with approve, and reject with a reason, through the calls the CLI's partner
 * approve and reject make; then the decided ones.
 */
export function applicationsSection(shell: Shell, section: HTMLElement, programId: number): void {
  const { client } = shell;
  const status = h('div', { class: 'status', 'aria-live': 'polite' });
  const list = h('div', { id: 'application-list' });
  const act = (run: () => Promise<unknown>) => run().then(() => undefined, (error) => shell.fail(error, status));

  const decide = (a: Application) => {
    const reason = h('input', { id: `reject-reason-${a.id}`, name: 'reason', maxlength: 1000, 'aria-label': `Reason to reject ${a.name}` });
    return h(
      'div',
      { class: 'actions' },
      button('Approve', () => act(async () => {
        await client.applications.approve(a.id);
        await load();
        say(status, `${a.name} approved and enrolled.`);
      }), { 'aria-label': `Approve ${a.name}` }),
      reason,
      button('Reject', () => act(async () => {
        if (reason.value.trim() === '') return say(status, `Give a reason to reject ${a.name}.`);
        await client.applications.reject(a.id, { reason: reason.value });
        await load();
        say(status, `${a.name} rejected.`);
      }), { class: 'secondary', 'aria-label': `Reject ${a.name}` }),
    );
  };

  async function load(): Promise<void> {
    const { data } = await client.applications.list(programId);
    const pending = data.filter((a) => a.status === 'pending');
    const decided = data.filter((a) => a.status !== 'pending');
    show(
      list,
      table(
        'Pending applications',
        [{ label: 'Name' }, { label: 'E-mail' }, { label: 'Website' }, { label: 'Message' }, { label: 'Applied' }, { label: 'Decide' }],
        pending.map((a) => [a.name, a.email, a.website ?? '—', a.message ?? '—', formatInstant(a.createdAt), decide(a)]),
        `No pending applications. People apply on ${location.origin}/apply/${programId}.`,
        { id: 'pending-applications' },
      ),
      decided.length > 0 &&
        table(
          'Decided applications',
          [{ label: 'Name' }, { label: 'E-mail' }, { label: 'Status' }, { label: 'Reason' }, { label: 'Decided' }],
          decided.map((a) => [a.name, a.email, a.status, a.reason ?? '—', formatInstant(a.decidedAt)]),
          '',
        ),
    );
  }

  show(section, h('h2', {}, 'Applications'), status, list);
  void act(load);
}
