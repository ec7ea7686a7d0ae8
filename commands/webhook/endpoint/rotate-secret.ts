import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { endpointFlag, renderEndpoint } from '../../../src/cli/webhook-endpoints.js';

export default class WebhookEndpointRotateSecret extends PartnerkitCommand {
  static override description = 'Give a webhook endpoint a new signing secret, shown only now; the previous one also signs for 24 hours';
  static override examples = ['<%= config.bin %> webhook endpoint rotate-secret --endpoint 1'];
  static override flags = { endpoint: endpointFlag, 'session-token': sessionTokenFlag };

  async run() {
    const { flags } = await this.parse(WebhookEndpointRotateSecret);
    const endpoint = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.webhookEndpoints.rotateSecret(flags.endpoint));
    this.log(renderEndpoint(endpoint));
    this.log('Keep the secret: it is not shown again. The previous one also signs for 24 hours.');
    return endpoint;
  }
}
