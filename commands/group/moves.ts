import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderMoves } from '../../src/cli/groups.js';
import { clockFromEnv } from '../../src/clock.js';

export default class GroupMoves extends PartnerkitCommand {
  static override description = "List the partners' moves between groups, newest first: by threshold or by a member";
  static override examples = ['<%= config.bin %> group moves --program 1', '<%= config.bin %> group moves --program 1 --partner 3'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    partner: Flags.integer({ description: "only this partner's moves", min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(GroupMoves);
    const moves = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.groups.moves(flags.program, flags.partner));
    this.log(renderMoves(moves, clockFromEnv().now(), 'No moves yet.'));
    return moves;
  }
}
