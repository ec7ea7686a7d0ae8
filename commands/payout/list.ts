import { Flags } from '@oclif/core';
import { PAYOUT_STATUSES, type PayoutStatus } from '../../src/api/constants.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderPayouts } from '../../src/cli/payouts.js';

export default class PayoutList extends PartnerkitCommand {
  static override description = "List a program's payouts";
  static override examples = ['<%= config.bin %> payout list --program 1', '<%= config.bin %> payout list --program 1 --status processing'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    status: Flags.string({ description: 'only payouts of this status', options: [...PAYOUT_STATUSES] }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PayoutList);
    const payouts = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.payouts.list(flags.program, { status: flags.status as PayoutStatus | undefined }),
    );
    this.log(renderPayouts(payouts));
    return payouts;
  }
}
