import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { eventsFlag, renderEndpoint } from '../../../src/cli/webhook-endpoints.js';

export default class WebhookEndpointAdd extends PartnerkitCommand {
  static override description = "Add a webhook endpoint to a program; its signing secret is shown only now";
  static override examples = [
    '<%= config.bin %> webhook endpoint add --program 1 --endpoint-url https://example.com/webhooks/partnerkit',
    '<%= config.bin %> webhook endpoint add --program 1 --endpoint-url https://example.com/hooks --events sale.created,refund.created',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    // --url names the partnerkit server, as on every command.
    'endpoint-url': Flags.string({ description: 'where events are POSTed (http or https, at most 2,048 characters)', required: true }),
    events: eventsFlag,
    description: Flags.string({ description: 'a note for the dashboard' }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(WebhookEndpointAdd);
    const endpoint = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.webhookEndpoints.create(flags.program, { url: flags['endpoint-url'], events: flags.events, description: flags.description }),
    );
    this.log(renderEndpoint(endpoint));
    this.log('Keep the secret: it is not shown again (rotate-secret makes a new one).');
    return endpoint;
  }
}
