import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { nextCommand } from '../../../src/cli/next-command.js';
import { renderObject } from '../../../src/cli/output.js';
import { endpointFlag } from '../../../src/cli/webhook-endpoints.js';

export default class WebhookEndpointTest extends PartnerkitCommand {
  static override description = 'Send one ping event to a webhook endpoint';
  static override examples = ['<%= config.bin %> webhook endpoint test --endpoint 1'];
  static override flags = { endpoint: endpointFlag, 'session-token': sessionTokenFlag };

  async run() {
    const { flags } = await this.parse(WebhookEndpointTest);
    const sent = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.webhookEndpoints.test(flags.endpoint));
    this.log(renderObject(sent));
    this.log(`See how it went: ${nextCommand(this.config.root, ['webhook', 'deliveries', '--endpoint', String(flags.endpoint)], flags)}`);
    return sent;
  }
}
