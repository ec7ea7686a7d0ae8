import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';

export default class ClickRecord extends PartnerkitCommand {
  static override description = "Record a click on a partner's referral link (what the merchant's page does)";
  static override examples = ['<%= config.bin %> click record --ref k3xq9aa2mz'];
  static override flags = {
    ref: Flags.string({ description: 'referral code', required: true }),
    test: Flags.boolean({ description: 'a test click, never counted in reports', default: false }),
  };

  async run() {
    const { flags } = await this.parse(ClickRecord);
    const click = await this.withClient(flags, {}, (client) => client.sendClick({ ref: flags.ref, test: flags.test }));
    this.log(click.click_id);
    return click;
  }
}
