import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import type { WebhookEvent } from '../../src/api/index.js';
import { renderTable, truncateMiddle, type Column } from '../../src/cli/output.js';

/** The widest an event type or id is shown: a few of Stripe's event types, and any id, may be longer. */
const ID_WIDTH = 40;

// Two lines a row keep the six fields inside 100 columns (docs/behaviour.md §9.7); --json has them whole.
const eventColumns: Column<WebhookEvent>[] = [
  { header: 'Received\n(UTC)', value: (e) => `${e.receivedAt.slice(0, 10)}\n${e.receivedAt.slice(11, 19)}` },
  { header: 'Type\nevent id', value: (e) => `${truncateMiddle(e.type, ID_WIDTH)}\n${truncateMiddle(e.eventId, ID_WIDTH)}` },
  { header: 'Outcome\nreason', value: (e) => (e.reason === null ? e.outcome : `${e.outcome}\n${e.reason}`) },
  { header: 'Sale', value: (e) => e.saleId, align: 'right' },
];

export default class WebhookEvents extends PartnerkitCommand {
  static override description = 'List the Stripe events a program received, newest first, with their outcome';
  static override examples = ['<%= config.bin %> webhook events --program 1', '<%= config.bin %> webhook events --program 1 --limit 200 --json'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    limit: Flags.integer({ description: 'most events to list', default: 50, min: 1, max: 1000 }),
  };

  async run() {
    const { flags } = await this.parse(WebhookEvents);
    const events = await this.withClient(flags, {}, (client) => client.webhooks.events(flags.program, { limit: flags.limit }));
    this.log(renderTable(eventColumns, events));
    return events;
  }
}
