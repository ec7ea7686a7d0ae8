import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class MemberRemove extends PartnerkitCommand {
  static override description = 'Deactivate a workspace member: the program is closed to them and every session of theirs ends';
  static override examples = ['<%= config.bin %> member remove --program 1 --email analyst@example.com'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    email: Flags.string({ description: "the user's e-mail", required: true }),
  };

  async run() {
    const { flags } = await this.parse(MemberRemove);
    const member = await this.withClient(flags, {}, (client) => client.members.remove(flags.program, { email: flags.email }));
    this.log(renderObject(member));
    return member;
  }
}
