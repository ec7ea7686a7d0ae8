import { applicationFlag } from '../../src/cli/applications.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class PartnerApprove extends PartnerkitCommand {
  static override description = 'Approve a partner application: the partner is enrolled and, when serve mails, sent their partner link';
  static override examples = ['<%= config.bin %> partner approve --application 1'];
  static override flags = { application: applicationFlag, 'session-token': sessionTokenFlag };

  async run() {
    const { flags } = await this.parse(PartnerApprove);
    const application = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.applications.approve(flags.application));
    this.log(renderObject(application));
    return application;
  }
}
