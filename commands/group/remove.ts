import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class GroupRemove extends PartnerkitCommand {
  static override description = 'Remove a group; its partners move to --move-to (refused while it has partners and none is named)';
  static override examples = ['<%= config.bin %> group remove --program 1 --group 2 --move-to 1'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    group: Flags.integer({ description: 'group id', required: true, min: 1 }),
    'move-to': Flags.integer({ description: "the group its partners move to (the new default if it was the default)", min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(GroupRemove);
    const group = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.groups.remove(flags.program, flags.group, flags['move-to']));
    this.log(renderObject(group));
    return group;
  }
}
