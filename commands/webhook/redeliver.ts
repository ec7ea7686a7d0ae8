import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class WebhookRedeliver extends PartnerkitCommand {
  static override description = 'Send a webhook event again now, a failed one too: to one endpoint, or to every endpoint it went to';
  static override examples = ['<%= config.bin %> webhook redeliver --event evt_…', '<%= config.bin %> webhook redeliver --event evt_… --endpoint 2'];
  static override flags = {
    event: Flags.string({ description: 'the event id (evt_…, the webhook-id header)', required: true }),
    endpoint: Flags.integer({ description: 'only to this endpoint', min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(WebhookRedeliver);
    const sent = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.webhookEndpoints.redeliver(flags.event, flags.endpoint));
    this.log(renderObject(sent));
    return sent;
  }
}
