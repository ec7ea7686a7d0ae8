import { CommissionReviewCommand, reasonFlag, reviewFlags } from '../../src/cli/review-command.js';

export default class FraudReject extends CommissionReviewCommand {
  static override description = 'Reject held commissions (all the ids, or none)';
  static override examples = ['<%= config.bin %> fraud reject --program 1 --ids 14 --reason "Self-referral confirmed"'];
  static override flags = { ...reviewFlags, reason: reasonFlag };

  async run() {
    const { flags } = await this.parse(FraudReject);
    return this.review(flags, (client) => client.fraud.reject(flags.program, { commissionIds: flags.ids, reason: flags.reason }));
  }
}
