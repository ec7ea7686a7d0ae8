import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderTable } from '../../src/cli/output.js';
import { amountText, partnerLabel, partnerNames } from '../../src/cli/payouts.js';

const WAIT_REASONS = { below_minimum: 'below the minimum', not_positive: 'not positive', amount_too_large: 'too large to pay' } as const;

export default class PayoutPreview extends PartnerkitCommand {
  static override description = 'What payout create would pay now, per partner and currency, and the balances that wait (below the minimum, or not positive)';
  static override examples = ['<%= config.bin %> payout preview --program 1'];
  static override flags = { program: Flags.integer({ description: 'program id', required: true, min: 1 }), 'session-token': sessionTokenFlag };

  async run() {
    const { flags } = await this.parse(PayoutPreview);
    const { preview, names } = await this.withClient(flags, { token: flags['session-token'] }, async (client) => ({
      preview: await client.payouts.preview(flags.program),
      names: await partnerNames(client, flags.program),
    }));
    this.log('Due now');
    this.log(
      renderTable(
        [
          { header: 'partner', value: (p) => partnerLabel(names, p.partnerId), shrink: 'end' },
          { header: 'amount', value: (p) => amountText(p.amountCents, p.currency), align: 'right' },
          { header: 'commissions', value: (p) => p.commissionCount, align: 'right' },
        ],
        preview.payouts,
        { empty: 'Nothing is due: no approved commission waits to be paid.' },
      ),
    );
    this.log('Waiting');
    this.log(
      renderTable(
        [
          { header: 'partner', value: (w) => partnerLabel(names, w.partnerId), shrink: 'end' },
          { header: 'balance', value: (w) => amountText(w.balanceCents, w.currency), align: 'right' },
          { header: 'reason', value: (w) => WAIT_REASONS[w.reason] },
        ],
        preview.waiting,
        // Pending commissions are no balance yet: say so, so "nothing waits" does not read as "nothing is owed".
        { empty: 'No approved balance waits (pending commissions count once approved).' },
      ),
    );
    return preview;
  }
}
