import { CommissionReviewCommand, reviewFlags } from '../../src/cli/review-command.js';

export default class FraudRelease extends CommissionReviewCommand {
  static override description = 'Release held commissions: they go back to pending and follow their hold date (all the ids, or none)';
  static override examples = ['<%= config.bin %> fraud release --program 1 --ids 12,13'];
  static override flags = { ...reviewFlags };

  async run() {
    const { flags } = await this.parse(FraudRelease);
    return this.review(flags, (client) => client.fraud.release(flags.program, { commissionIds: flags.ids }));
  }
}
