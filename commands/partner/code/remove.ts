import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { renderObject } from '../../../src/cli/output.js';

export default class PartnerCodeRemove extends PartnerkitCommand {
  static override description = 'Remove a promotion code: it attributes nothing new, its sales stay, and it cannot be added again';
  static override examples = ['<%= config.bin %> partner code remove --program 1 --code summer20'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    code: Flags.string({ description: 'the code, in any case', required: true }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PartnerCodeRemove);
    const code = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.codes.remove(flags.program, flags.code));
    this.log(renderObject(code));
    return code;
  }
}
