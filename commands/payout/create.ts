import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderPayouts } from '../../src/cli/payouts.js';

export default class PayoutCreate extends PartnerkitCommand {
  static override description =
    'Pay every due balance: one payout per partner and currency, taking all its approved commissions (they become processing), in one batch';
  static override examples = ['<%= config.bin %> payout create --program 1', '<%= config.bin %> payout create --program 1 --json'];
  static override flags = { program: Flags.integer({ description: 'program id', required: true, min: 1 }), 'session-token': sessionTokenFlag };

  async run() {
    const { flags } = await this.parse(PayoutCreate);
    const batch = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.payouts.create(flags.program));
    if (batch.batchId === null) this.log('Nothing is due: no payout was created.');
    else this.log(`Batch ${batch.batchId}: ${batch.payouts.length} payout(s)\n${renderPayouts(batch.payouts)}`);
    return batch;
  }
}
