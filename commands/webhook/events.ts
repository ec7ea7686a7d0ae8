import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import type { WebhookEvent } from '../../src/api/index.js';
import { formatWhen, renderTable, type Column } from '../../src/cli/output.js';
import { clockFromEnv } from '../../src/clock.js';

/**
 * One line an event, within 80 columns (docs/cli.md#tables-and-numbers): a long type is
 * shortened in the middle, a long reason at the end; --json has them whole, and the event ids.
 */
const eventColumns = (now: Date): Column<WebhookEvent>[] => [
  { header: 'received', value: (e) => formatWhen(e.receivedAt, now) },
  { header: 'type', value: (e) => e.type, shrink: 'middle' },
  { header: 'outcome', value: (e) => e.outcome },
  { header: 'reason', value: (e) => e.reason, shrink: 'end' },
  { header: 'sale', value: (e) => e.saleId, align: 'right' },
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
    const empty = `No Stripe events received by program ${flags.program} yet: point a Stripe webhook endpoint at /api/v1/webhooks/stripe/${flags.program} and set its secret with webhook secret.`;
    this.log(renderTable(eventColumns(clockFromEnv().now()), events, { empty }));
    return events;
  }
}
