import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { formatCents, renderTable } from '../../src/cli/output.js';

export default class PayoutPreview extends PartnerkitCommand {
  static override description = 'What payout create would pay now, per partner and currency, and the balances that wait (below the minimum, or not positive)';
  static override examples = ['<%= config.bin %> payout preview --program 1'];
  static override flags = { program: Flags.integer({ description: 'program id', required: true, min: 1 }), 'session-token': sessionTokenFlag };

  async run() {
    const { flags } = await this.parse(PayoutPreview);
    const preview = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.payouts.preview(flags.program));
    this.log('Due now');
    this.log(
      renderTable(
        [
          { header: 'partner', value: (p) => p.partnerId },
          { header: 'amount', value: (p) => `${formatCents(p.amountCents)} ${p.currency}`, align: 'right' },
          { header: 'commissions', value: (p) => p.commissionCount, align: 'right' },
        ],
        preview.payouts,
        { compact: true },
      ),
    );
    this.log('Waiting');
    this.log(
      renderTable(
        [
          { header: 'partner', value: (w) => w.partnerId },
          { header: 'balance', value: (w) => `${formatCents(w.balanceCents)} ${w.currency}`, align: 'right' },
          { header: 'reason', value: (w) => w.reason },
        ],
        preview.waiting,
        { compact: true },
      ),
    );
    return preview;
  }
}
