import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderGroups } from '../../src/cli/groups.js';
import { nextCommand } from '../../src/cli/next-command.js';

export default class GroupList extends PartnerkitCommand {
  static override description = "List a program's partner groups: reward, hold days, lead reward, threshold and partners";
  static override examples = ['<%= config.bin %> group list --program 1'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(GroupList);
    const groups = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.groups.list(flags.program));
    const add = nextCommand(this.config.root, ['group', 'add', '--program', String(flags.program), '--name', 'NAME', '--commission-percent', 'N'], flags);
    this.log(renderGroups(groups, `No groups yet: every partner earns the program's reward. Add one with: ${add}`));
    return groups;
  }
}
