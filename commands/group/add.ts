import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { groupSettingFlags, groupSettings } from '../../src/cli/groups.js';
import { renderObject } from '../../src/cli/output.js';

export default class GroupAdd extends PartnerkitCommand {
  static override description = "Add a partner group with its own reward (the program's first group is its default)";
  static override examples = [
    '<%= config.bin %> group add --program 1 --name Gold --commission-percent 25 --hold-days 14 --lead-reward-cents 500',
    '<%= config.bin %> group add --program 1 --name Starter --next-group 2 --threshold-metric conversions --threshold 10 --threshold-window 30d',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    ...groupSettingFlags,
    name: Flags.string({ description: 'group name, unique in the program', required: true }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(GroupAdd);
    const group = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.groups.add(flags.program, { ...groupSettings(flags), name: flags.name }),
    );
    this.log(renderObject(group));
    return group;
  }
}
