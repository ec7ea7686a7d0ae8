import { Flags } from '@oclif/core';
import { COMMISSION_STATUSES, type CommissionStatus } from '../../src/api/constants.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderCommissions } from '../../src/cli/payouts.js';

export default class CommissionList extends PartnerkitCommand {
  static override description = "List a program's commissions with their status as of now (a pending commission past its hold reads approved under auto approval)";
  static override examples = [
    '<%= config.bin %> commission list --program 1',
    '<%= config.bin %> commission list --program 1 --status approved --partner 2 --json',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    status: Flags.string({ description: 'only commissions of this status', options: [...COMMISSION_STATUSES] }),
    partner: Flags.integer({ description: "only this partner's commissions", min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(CommissionList);
    const commissions = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.commissions.list(flags.program, { status: flags.status as CommissionStatus | undefined, partnerId: flags.partner }),
    );
    this.log(renderCommissions(commissions));
    return commissions;
  }
}
