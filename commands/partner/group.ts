import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class PartnerGroup extends PartnerkitCommand {
  static override description = "Put a partner in a group of the program: its reward applies from the partner's next sale on";
  static override examples = ['<%= config.bin %> partner group --program 1 --partner 3 --group 2'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    partner: Flags.integer({ description: 'partner id (enrolled in the program)', required: true, min: 1 }),
    group: Flags.integer({ description: 'group id', required: true, min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PartnerGroup);
    const result = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.groups.setPartner(flags.program, flags.partner, flags.group));
    this.log(renderObject({ partnerId: result.partnerId, groupId: result.groupId, moved: result.move !== null }));
    return result;
  }
}
