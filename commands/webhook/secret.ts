import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class WebhookSecret extends PartnerkitCommand {
  static override description = "Set the program's webhook signing secret to the one Stripe shows for its endpoint";
  static override examples = ['<%= config.bin %> webhook secret --program 1 --secret whsec_…'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    secret: Flags.string({ description: "the endpoint's signing secret from the Stripe dashboard (whsec_…)", required: true }),
  };

  async run() {
    const { flags } = await this.parse(WebhookSecret);
    const result = await this.withClient(flags, {}, (client) => client.webhooks.setSecret(flags.program, { secret: flags.secret }));
    this.log(renderObject(result));
    return result;
  }
}
