import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { partnerNames, renderPayouts } from '../../src/cli/payouts.js';
import { clockFromEnv } from '../../src/clock.js';

export default class PayoutCreate extends PartnerkitCommand {
  static override description =
    'Pay every due balance: one payout per partner and currency, taking all its approved commissions (they become processing), in one batch';
  static override examples = ['<%= config.bin %> payout create --program 1', '<%= config.bin %> payout create --program 1 --json'];
  static override flags = { program: Flags.integer({ description: 'program id', required: true, min: 1 }), 'session-token': sessionTokenFlag };

  async run() {
    const { flags } = await this.parse(PayoutCreate);
    const { batch, names } = await this.withClient(flags, { token: flags['session-token'] }, async (client) => ({
      batch: await client.payouts.create(flags.program),
      names: await partnerNames(client, flags.program),
    }));
    const nothing = 'Nothing is due: no payout was created.';
    if (batch.batchId === null) this.log(nothing);
    else this.log(`Batch ${batch.batchId}: ${batch.payouts.length} payout(s)\n${renderPayouts(batch.payouts, names, clockFromEnv().now(), nothing)}`);
    return batch;
  }
}
