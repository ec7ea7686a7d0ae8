import { CommissionReviewCommand, reviewFlags } from '../../src/cli/review-command.js';

export default class CommissionApprove extends CommissionReviewCommand {
  static override description =
    'Approve pending commissions whose hold is over (manual approval): all the ids, or none when one of them cannot be approved';
  static override examples = ['<%= config.bin %> commission approve --program 1 --ids 1,2,3'];
  static override flags = { ...reviewFlags };

  async run() {
    const { flags } = await this.parse(CommissionApprove);
    return this.review(flags, (client) => client.commissions.approve(flags.program, { ids: flags.ids }));
  }
}
