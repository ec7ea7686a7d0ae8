import { Flags } from '@oclif/core';
import { PAYOUT_STATUSES, type PayoutStatus } from '../../src/api/constants.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { nextCommand } from '../../src/cli/next-command.js';
import { partnerNames, renderPayouts } from '../../src/cli/payouts.js';
import { clockFromEnv } from '../../src/clock.js';

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
    const { payouts, names } = await this.withClient(flags, { token: flags['session-token'] }, async (client) => ({
      payouts: await client.payouts.list(flags.program, { status: flags.status as PayoutStatus | undefined }),
      names: await partnerNames(client, flags.program),
    }));
    const create = nextCommand(this.config.root, ['payout', 'create', '--program', String(flags.program)], flags);
    const empty = flags.status === undefined ? `No payouts yet. Create them with: ${create}` : `No ${flags.status} payouts.`;
    this.log(renderPayouts(payouts, names, clockFromEnv().now(), empty));
    return payouts;
  }
}
