import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { endpointFlag, renderEndpoint } from '../../../src/cli/webhook-endpoints.js';

export default class WebhookEndpointRemove extends PartnerkitCommand {
  static override description = 'Remove a webhook endpoint: nothing more is sent to it; its deliveries stay in the log';
  static override examples = ['<%= config.bin %> webhook endpoint remove --endpoint 1'];
  static override flags = { endpoint: endpointFlag, 'session-token': sessionTokenFlag };

  async run() {
    const { flags } = await this.parse(WebhookEndpointRemove);
    const endpoint = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.webhookEndpoints.remove(flags.endpoint));
    this.log(renderEndpoint(endpoint));
    return endpoint;
  }
}
