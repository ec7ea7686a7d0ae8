import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { EXPORT_FORMATS, type ExportFormat } from '../../src/api/constants.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';

export default class PayoutExport extends PartnerkitCommand {
  static override description =
    "Write a batch's processing payouts as CSV, a PayPal Payouts file or a Wise batch payment file; payouts a PayPal or Wise file cannot pay (no payout e-mail, another payout method) are listed, never silently left out";
  static override examples = [
    '<%= config.bin %> payout export --batch 3 --format csv',
    '<%= config.bin %> payout export --batch 3 --format paypal --currency USD --out paypal-usd.csv',
    '<%= config.bin %> payout export --batch 3 --format wise --out - > wise.csv',
  ];
  static override flags = {
    batch: Flags.integer({ description: 'batch id', required: true, min: 1 }),
    format: Flags.string({ description: 'file format', options: [...EXPORT_FORMATS], required: true }),
    currency: Flags.string({ description: "only this currency's payouts (a PayPal or Wise file takes one currency)" }),
    out: Flags.string({ description: 'file to write, - for stdout (default payout-batch-<batch>-<format>.csv)' }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PayoutExport);
    const format = flags.format as ExportFormat;
    const out = flags.out ?? `payout-batch-${flags.batch}-${format}.csv`;
    if (out === '-' && this.jsonEnabled()) this.error('--json prints the summary on stdout: give --out a file', { exit: 2 });
    const { exported, skipped } = await this.withClient(flags, { token: flags['session-token'] }, async (client) => {
      const result = await client.payouts.export(flags.batch, { format, currency: flags.currency });
      if (out === '-') process.stdout.write(result.file);
      else writeFileSync(out, result.file, { mode: 0o600 }); // e-mails and amounts of people: like the data dir's files
      const partners = await Promise.all(result.skipped.map((s) => client.payouts.get(s.payoutId)));
      return { exported: result.exportedPayoutIds, skipped: result.skipped.map((s, i) => ({ payoutId: s.payoutId, partnerId: partners[i].partnerId, reason: s.reason })) };
    });
    const file = out === '-' ? null : resolve(out);
    const summary = { file, rows: exported.length, skipped };
    if (file !== null) this.log(`Wrote ${exported.length} payout(s) to ${file}`);
    for (const s of skipped) this.logToStderr(`Skipped payout ${s.payoutId} of partner ${s.partnerId}: ${s.reason}`);
    return summary;
  }
}
