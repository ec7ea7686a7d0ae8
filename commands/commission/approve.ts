import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { idsFlag, partnerNames, renderCommissions } from '../../src/cli/payouts.js';
import { clockFromEnv } from '../../src/clock.js';

export default class CommissionApprove extends PartnerkitCommand {
  static override description =
    'Approve pending commissions whose hold is over (manual approval): all the ids, or none when one of them cannot be approved';
  static override examples = ['<%= config.bin %> commission approve --program 1 --ids 1,2,3'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    ids: idsFlag,
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(CommissionApprove);
    const { commissions, names } = await this.withClient(flags, { token: flags['session-token'] }, async (client) => ({
      commissions: await client.commissions.approve(flags.program, { ids: flags.ids }),
      names: await partnerNames(client, flags.program),
    }));
    this.log(renderCommissions(commissions, names, clockFromEnv().now(), 'No commission changed.'));
    return commissions;
  }
}
