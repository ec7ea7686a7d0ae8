import { Args } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class PayoutShow extends PartnerkitCommand {
  static override description = 'Show a payout with the commissions it took';
  static override examples = ['<%= config.bin %> payout show 7'];
  static override args = { payoutId: Args.integer({ description: 'payout id', required: true, min: 1 }) };
  static override flags = { 'session-token': sessionTokenFlag };

  async run() {
    const { args, flags } = await this.parse(PayoutShow);
    const payout = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.payouts.get(args.payoutId));
    this.log(renderObject(payout));
    return payout;
  }
}
