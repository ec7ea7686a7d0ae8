import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { idsFlag, partnerNames, renderCommissions } from '../../src/cli/payouts.js';
import { clockFromEnv } from '../../src/clock.js';

export default class CommissionReject extends PartnerkitCommand {
  static override description = 'Reject pending or approved commissions (never processing or paid ones): all the ids, or none';
  static override examples = ['<%= config.bin %> commission reject --program 1 --ids 4,5 --reason "Self-referral"'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    ids: idsFlag,
    reason: Flags.string({ description: 'why, kept with each commission' }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(CommissionReject);
    const { commissions, names } = await this.withClient(flags, { token: flags['session-token'] }, async (client) => ({
      commissions: await client.commissions.reject(flags.program, { ids: flags.ids, reason: flags.reason }),
      names: await partnerNames(client, flags.program),
    }));
    this.log(renderCommissions(commissions, names, clockFromEnv().now(), 'No commission changed.'));
    return commissions;
  }
}
