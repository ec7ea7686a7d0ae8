import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderTable } from '../../src/cli/output.js';

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
    this.log(
      renderTable(
        [
          { header: 'received', value: (e) => e.receivedAt },
          { header: 'event', value: (e) => e.eventId },
          { header: 'type', value: (e) => e.type },
          { header: 'outcome', value: (e) => e.outcome },
          { header: 'reason', value: (e) => e.reason },
          { header: 'sale', value: (e) => e.saleId },
        ],
        events,
      ),
    );
    return events;
  }
}
