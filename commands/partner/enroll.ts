import { Flags } from '@oclif/core';
import { partnerLinkPath } from '../../src/api/constants.js';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { absolute, NO_SERVER_NOTE } from '../../src/cli/links.js';
import { renderObject } from '../../src/cli/output.js';

export default class PartnerEnroll extends PartnerkitCommand {
  static override description = "Enroll a partner in a program; prints the referral code and the partner's link";
  static override examples = ['<%= config.bin %> partner enroll --program 1 --partner 2'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    partner: Flags.integer({ description: 'partner id', required: true, min: 1 }),
  };

  async run() {
    const { flags } = await this.parse(PartnerEnroll);
    const enrollment = await this.withClient(flags, {}, (client) => client.partners.enroll(flags.program, { partnerId: flags.partner }));
    const server = this.serverUrl(flags);
    const result = { ...enrollment, link: absolute(server, partnerLinkPath(enrollment.refCode)) };
    this.log(renderObject(result));
    if (server === undefined) this.log(`\n${NO_SERVER_NOTE}`);
    return result;
  }
}
