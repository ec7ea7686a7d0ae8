import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class MemberAdd extends PartnerkitCommand {
  static override description = "Add a workspace member (a dashboard user who may read the program's reports)";
  static override examples = ['<%= config.bin %> member add --program 1 --email analyst@example.com'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    email: Flags.string({ description: "the user's e-mail", required: true }),
  };

  async run() {
    const { flags } = await this.parse(MemberAdd);
    const member = await this.withClient(flags, {}, (client) => client.members.add(flags.program, { email: flags.email }));
    this.log(renderObject(member));
    return member;
  }
}
