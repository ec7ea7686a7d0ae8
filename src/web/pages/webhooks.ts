import type { DeliveryView, EndpointView } from '../../api/outbound-webhooks.js';
import { button, h, show, table } from './dom.js';
import { formatInstant } from './format.js';
import { say } from './money.js';
import type { Shell } from './shell.js';

/** Deliveries shown per endpoint: the most recent. */
const RECENT = 10;

/**
 * The dashboard's Webhooks section (docs/pages.md#webhooks, docs/outbound-webhooks.md): a
 * program's endpoints, adding one (its secret shown once), each endpoint's recent deliveries and a
 * redeliver button, through the API calls the CLI's webhook commands make.
 */
export function webhooksSection(shell: Shell, section: HTMLElement, programId: number): void {
  const { client } = shell;
  const status = h('div', { class: 'status', 'aria-live': 'polite' });
  const list = h('div', { id: 'webhook-endpoints' });
  const url = h('input', { id: 'webhook-url', name: 'url', type: 'url', required: true, 'aria-describedby': 'webhook-url-hint' });
  const act = (run: () => Promise<unknown>) => run().then(() => undefined, (error) => shell.fail(error, status));

  async function load(): Promise<void> {
    const endpoints = await client.webhookEndpoints.list(programId);
    const deliveries = await Promise.all(endpoints.map((e) => client.webhookEndpoints.deliveries(e.id, { limit: RECENT })));
    show(list, ...(endpoints.length === 0 ? [h('p', { class: 'notice' }, 'No endpoints yet: add your server’s URL above to receive signed events.')] : endpoints.map((e, i) => endpointBlock(e, deliveries[i]))));
  }

  function endpointBlock(endpoint: EndpointView, deliveries: DeliveryView[]): HTMLElement {
    const redeliver = (d: DeliveryView) =>
      button('Redeliver', () => act(async () => {
        await client.webhookEndpoints.redeliver(d.eventId, endpoint.id);
        await load();
        say(status, `Event ${d.eventId} queued again for endpoint ${endpoint.id}.`);
      }), { class: 'secondary', 'aria-label': `Redeliver ${d.eventId}` });
    return h(
      'article',
      { class: 'endpoint', 'data-endpoint': endpoint.id },
      h('h3', {}, `#${endpoint.id} ${endpoint.url}`),
      h('p', {}, `${endpoint.enabled ? 'Enabled' : `Disabled${endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''}`} · events: ${endpoint.events?.join(', ') ?? 'all'}`),
      table(
        `Recent deliveries to endpoint ${endpoint.id}`,
        [{ label: 'Event' }, { label: 'Type' }, { label: 'Status' }, { label: 'Attempts', numeric: true }, { label: 'Last answer' }, { label: 'When' }, { label: '' }],
        deliveries.map((d) => [
          d.eventId, d.eventType, d.status, d.attempts, d.lastAttempt === null ? '—' : String(d.lastAttempt.statusCode ?? d.lastAttempt.error),
          formatInstant(d.lastAttempt?.at ?? null), redeliver(d),
        ]),
        'Nothing sent yet: events go out as they happen. Send a test event with partnerkit webhook endpoint test.',
      ),
    );
  }

  const add = button('Add endpoint', () => act(async () => {
    const created = await client.webhookEndpoints.create(programId, { url: url.value });
    url.value = '';
    await load();
    show(status, h('p', { role: 'status' }, `Endpoint ${created.id} added. Its signing secret, shown only now: `, h('code', {}, created.secret)));
  }), { type: 'submit' }); // the form's default button: Enter in the URL field adds the endpoint
  show(
    section,
    h('h2', {}, 'Webhooks'),
    h('form', { class: 'actions', onsubmit: (e) => e.preventDefault() }, h('label', { class: 'field', for: 'webhook-url' }, h('span', {}, 'Endpoint URL'), url), add),
    h('p', { id: 'webhook-url-hint', class: 'hint' }, 'Your server’s http or https address that receives the signed events.'),
    status,
    list,
  );
  void act(load);
}
