import { Args, Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { nextCommand } from '../../src/cli/next-command.js';
import { renderPartnerReport, reportFlags, reportQuery } from '../../src/cli/performance.js';
import { partnerReportCsv } from '../../src/report-csv.js';
import { clockFromEnv } from '../../src/clock.js';

export default class ReportPartners extends PartnerkitCommand {
  static override description =
    "Who brings the money: each partner's clicks, leads, conversions, sales, revenue, commission and conversion rate over a period, by revenue";
  static override examples = [
    '<%= config.bin %> report partners 1',
    '<%= config.bin %> report partners 1 --period 90d --limit 10',
    '<%= config.bin %> report partners 1 --from 2026-03-01 --to 2026-03-07 --csv',
  ];
  static override args = { programId: Args.integer({ description: 'program id', required: true, min: 1 }) };
  static override flags = {
    ...reportFlags,
    limit: Flags.integer({ description: 'only the first N partners (the table, CSV and JSON alike)', min: 1 }),
    csv: Flags.boolean({ description: 'print CSV: a header line and one line per partner', exclusive: ['json'] }),
  };

  async run() {
    const { args, flags } = await this.parse(ReportPartners);
    const full = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.reports.partners(args.programId, reportQuery(flags)));
    const report = { ...full, data: full.data.slice(0, flags.limit) };
    if (flags.csv) this.log(partnerReportCsv(report));
    else {
      const enroll = nextCommand(this.config.root, ['partner', 'enroll', '--program', String(args.programId), '--partner', 'ID'], flags);
      this.log(renderPartnerReport(args.programId, report, clockFromEnv().now(), enroll, full.data.length));
    }
    return report;
  }
}
