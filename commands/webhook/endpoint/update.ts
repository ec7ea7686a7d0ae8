import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { endpointFlag, eventsFlag, renderEndpoint } from '../../../src/cli/webhook-endpoints.js';

export default class WebhookEndpointUpdate extends PartnerkitCommand {
  static override description = "Change a webhook endpoint's URL, event types, description, or turn it on or off";
  static override examples = [
    '<%= config.bin %> webhook endpoint update --endpoint 1 --events sale.created',
    '<%= config.bin %> webhook endpoint update --endpoint 1 --enabled',
  ];
  static override flags = {
    endpoint: endpointFlag,
    // --url names the partnerkit server, as on every command.
    'endpoint-url': Flags.string({ description: 'where events are POSTed (http or https, at most 2,048 characters)' }),
    events: eventsFlag,
    'all-events': Flags.boolean({ description: 'send every event type', exclusive: ['events'] }),
    description: Flags.string({ description: 'a note for the dashboard' }),
    enabled: Flags.boolean({ description: 'send to it (--no-enabled: stop sending)', allowNo: true }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(WebhookEndpointUpdate);
    const events = flags['all-events'] ? { events: null } : flags.events ? { events: flags.events } : {};
    const endpoint = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.webhookEndpoints.update(flags.endpoint, { url: flags['endpoint-url'], description: flags.description, enabled: flags.enabled, ...events }),
    );
    this.log(renderEndpoint(endpoint));
    return endpoint;
  }
}
