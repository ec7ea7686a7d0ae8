import { Flags } from '@oclif/core';
import { applicationFlag } from '../../src/cli/applications.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class PartnerReject extends PartnerkitCommand {
  static override description = 'Reject a partner application, with a reason kept beside it';
  static override examples = ['<%= config.bin %> partner reject --application 1 --reason "No website yet"'];
  static override flags = {
    application: applicationFlag,
    reason: Flags.string({ description: 'why (kept with the application)', required: true }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PartnerReject);
    const application = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.applications.reject(flags.application, { reason: flags.reason }),
    );
    this.log(renderObject(application));
    return application;
  }
}
