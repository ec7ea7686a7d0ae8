import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { nextCommand } from '../../../src/cli/next-command.js';
import { renderCodes } from '../../../src/cli/promotion-codes.js';

export default class PartnerCodeList extends PartnerkitCommand {
  static override description = "List a program's promotion codes (removed ones are left out)";
  static override examples = ['<%= config.bin %> partner code list --program 1', '<%= config.bin %> partner code list --program 1 --partner 2'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    partner: Flags.integer({ description: "only this partner's codes", min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PartnerCodeList);
    const codes = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.codes.list(flags.program, flags.partner));
    const add = nextCommand(
      this.config.root,
      ['partner', 'code', 'add', '--program', String(flags.program), '--partner', String(flags.partner ?? 'ID'), '--code', 'CODE'],
      flags,
    );
    this.log(renderCodes(codes, `No promotion codes yet. Add one with: ${add}`));
    return codes;
  }
}
