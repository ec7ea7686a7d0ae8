import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { groupSettingFlags, groupSettings } from '../../src/cli/groups.js';
import { renderObject } from '../../src/cli/output.js';

export default class GroupUpdate extends PartnerkitCommand {
  static override description = "Change a group's settings: the flags given change, the others stay; sales already recorded keep their commissions";
  static override examples = [
    '<%= config.bin %> group update --program 1 --group 2 --recurring-months 12',
    '<%= config.bin %> group update --program 1 --group 2 --program-commission --clear-lead-reward --clear-threshold',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    group: Flags.integer({ description: 'group id', required: true, min: 1 }),
    ...groupSettingFlags,
    'program-commission': Flags.boolean({ description: "drop the group's sale reward: the program's applies", exclusive: ['commission-percent', 'commission-flat-cents'] }),
    'clear-lead-reward': Flags.boolean({ description: 'drop the lead reward', exclusive: ['lead-reward-cents'] }),
    'clear-threshold': Flags.boolean({ description: 'drop the threshold and the next group', exclusive: ['threshold', 'next-group'] }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(GroupUpdate);
    const body = groupSettings(flags);
    if (flags['program-commission']) body.commissionPercent = null;
    if (flags['clear-lead-reward']) body.leadRewardCents = null;
    if (flags['clear-threshold']) Object.assign(body, { threshold: null, nextGroupId: null });
    const group = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.groups.update(flags.program, flags.group, body));
    this.log(renderObject(group));
    return group;
  }
}
