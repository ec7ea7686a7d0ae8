import { Flags } from '@oclif/core';
import { COMMISSION_STATUSES, MAX_PAGE_LIMIT, type CommissionStatus } from '../../src/api/constants.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { partnerNames, renderCommissions } from '../../src/cli/payouts.js';
import { clockFromEnv } from '../../src/clock.js';
import { commissionsCsv } from '../../src/report-csv.js';

export default class CommissionList extends PartnerkitCommand {
  static override description = "List a program's commissions with their status as of now (a pending commission past its hold reads approved under auto approval)";
  static override examples = [
    '<%= config.bin %> commission list --program 1',
    '<%= config.bin %> commission list --program 1 --status approved --partner 2 --json',
    '<%= config.bin %> commission list --program 1 --status pending --limit 20 --offset 40',
    '<%= config.bin %> commission list --program 1 --csv > commissions.csv',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    status: Flags.string({ description: 'only commissions of this status', options: [...COMMISSION_STATUSES] }),
    partner: Flags.integer({ description: "only this partner's commissions", min: 1 }),
    limit: Flags.integer({ description: 'at most this many commissions (a page); every one when absent', min: 1, max: MAX_PAGE_LIMIT }),
    offset: Flags.integer({ description: 'skip this many commissions first', min: 0, default: 0 }),
    csv: Flags.boolean({ description: 'print CSV: a header line and one line per commission', exclusive: ['json'] }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(CommissionList);
    const query = { status: flags.status as CommissionStatus | undefined, partnerId: flags.partner, limit: flags.limit, offset: flags.offset };
    const { data, total, names } = await this.withClient(flags, { token: flags['session-token'] }, async (client) => ({
      ...(await client.commissions.page(flags.program, query)),
      names: await partnerNames(client, flags.program),
    }));
    if (flags.csv) {
      this.log(commissionsCsv(data, names));
      return data;
    }
    const filtered = flags.status !== undefined || flags.partner !== undefined || flags.offset > 0;
    const empty = filtered ? 'No commissions match.' : `No commissions yet in program ${flags.program}: a sale attributed to a partner earns one.`;
    this.log(renderCommissions(data, names, clockFromEnv().now(), empty));
    if (flags.limit !== undefined || flags.offset > 0) this.log(`Showing ${data.length} of ${total}`);
    return data;
  }
}
