import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { nextCommand } from '../../../src/cli/next-command.js';
import { renderEndpoints } from '../../../src/cli/webhook-endpoints.js';

export default class WebhookEndpointList extends PartnerkitCommand {
  static override description = "List a program's webhook endpoints (secrets are never shown again)";
  static override examples = ['<%= config.bin %> webhook endpoint list --program 1'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(WebhookEndpointList);
    const endpoints = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.webhookEndpoints.list(flags.program));
    const add = nextCommand(this.config.root, ['webhook', 'endpoint', 'add', '--program', String(flags.program), '--endpoint-url', 'URL'], flags);
    this.log(renderEndpoints(endpoints, `No webhook endpoints yet. Add one with: ${add}`));
    return endpoints;
  }
}
