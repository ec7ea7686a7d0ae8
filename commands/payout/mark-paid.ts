import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';
import { partnerNames, renderPayouts } from '../../src/cli/payouts.js';
import { clockFromEnv } from '../../src/clock.js';

export default class PayoutMarkPaid extends PartnerkitCommand {
  static override description =
    'Record that a payout, or every processing payout of a batch, was paid: its commissions become paid. Running it again changes nothing';
  static override examples = ['<%= config.bin %> payout mark-paid --payout 7', '<%= config.bin %> payout mark-paid --batch 3'];
  static override flags = {
    payout: Flags.integer({ description: 'payout id', min: 1, exactlyOne: ['payout', 'batch'] }),
    batch: Flags.integer({ description: 'batch id: every processing payout of the batch', min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PayoutMarkPaid);
    return this.withClient(flags, { token: flags['session-token'] }, async (client) => {
      if (flags.payout !== undefined) {
        const payout = await client.payouts.markPaid(flags.payout);
        this.log(renderObject(payout));
        return payout;
      }
      const batch = await client.payouts.markBatchPaid(flags.batch!);
      const names = batch.payouts.length === 0 ? new Map<number, string>() : await partnerNames(client, batch.payouts[0].programId);
      this.log(`Batch ${batch.batchId}\n${renderPayouts(batch.payouts, names, clockFromEnv().now(), 'No payout in this batch.')}`);
      return batch;
    });
  }
}
