import { CommissionReviewCommand, reasonFlag, reviewFlags } from '../../src/cli/review-command.js';

export default class CommissionReject extends CommissionReviewCommand {
  static override description = 'Reject pending or approved commissions (never processing or paid ones): all the ids, or none';
  static override examples = ['<%= config.bin %> commission reject --program 1 --ids 4,5 --reason "Self-referral"'];
  static override flags = { ...reviewFlags, reason: reasonFlag };

  async run() {
    const { flags } = await this.parse(CommissionReject);
    return this.review(flags, (client) => client.commissions.reject(flags.program, { ids: flags.ids, reason: flags.reason }));
  }
}
