import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class PayoutCancel extends PartnerkitCommand {
  static override description = 'Cancel a processing payout: its commissions are approved again, for the next payout. A paid payout cannot be canceled';
  static override examples = ['<%= config.bin %> payout cancel --payout 7'];
  static override flags = {
    payout: Flags.integer({ description: 'payout id', required: true, min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PayoutCancel);
    const payout = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.payouts.cancel(flags.payout));
    this.log(renderObject(payout));
    return payout;
  }
}
