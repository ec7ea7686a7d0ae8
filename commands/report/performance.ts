import { Args, Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderPerformance, reportFlags, reportQuery } from '../../src/cli/performance.js';
import { performanceCsv } from '../../src/report-csv.js';
import { clockFromEnv } from '../../src/clock.js';

export default class ReportPerformance extends PartnerkitCommand {
  static override description =
    "A program's per-day clicks, leads, conversions, revenue, partners, sales and commission, with totals and trends versus the previous period";
  static override examples = [
    '<%= config.bin %> report performance 1',
    '<%= config.bin %> report performance 1 --period 30d',
    '<%= config.bin %> report performance 1 --from 2026-03-01 --to 2026-03-07 --csv',
    'PARTNERKIT_SESSION_TOKEN=pks_… <%= config.bin %> report performance 1 --url https://partners.example.com --json',
  ];
  static override args = { programId: Args.integer({ description: 'program id', required: true, min: 1 }) };
  static override flags = {
    ...reportFlags,
    csv: Flags.boolean({ description: 'print CSV: a header line and one line per day', exclusive: ['json'] }),
  };

  async run() {
    const { args, flags } = await this.parse(ReportPerformance);
    const report = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.reports.performance(args.programId, reportQuery(flags)));
    if (flags.csv) this.log(performanceCsv(report));
    else this.log(renderPerformance(args.programId, report, clockFromEnv().now()));
    return report;
  }
}
