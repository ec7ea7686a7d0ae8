import { Flags } from '@oclif/core';
import { PERIODS } from '../../src/api/constants.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderPreview } from '../../src/cli/groups.js';

export default class ProgramPreview extends PartnerkitCommand {
  static override description = "What the period's sales would have earned under another reward, per partner, beside what they earned; writes nothing";
  static override examples = [
    '<%= config.bin %> program preview --program 1 --period 90d --commission-percent 20',
    '<%= config.bin %> program preview --program 1 --period all --group 2',
    '<%= config.bin %> program preview --program 1 --commission-percent 25 --recurring-months 12',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    period: Flags.string({ description: 'the sales received in the last 7d, 30d, 90d or all', options: [...PERIODS], default: '90d' }),
    'commission-percent': Flags.string({ description: 'a percentage of each sale', exclusive: ['commission-flat-cents', 'group'] }),
    'commission-flat-cents': Flags.integer({ description: 'a flat amount per sale, in cents', min: 0, exclusive: ['group'] }),
    group: Flags.integer({ description: "a group's sale reward and recurring months", min: 1 }),
    'recurring-months': Flags.integer({ description: "months of a subscription's renewals that earn (0: first payment only); default: the group's or the program's", min: 0, max: 1200, exclusive: ['every-renewal'] }),
    'every-renewal': Flags.boolean({ description: 'every renewal earns' }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(ProgramPreview);
    const preview = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.groups.preview(flags.program, {
        period: flags.period,
        commissionPercent: flags['commission-percent'] === undefined ? undefined : Number(flags['commission-percent']),
        commissionFlatCents: flags['commission-flat-cents'],
        groupId: flags.group,
        recurringMonths: flags['recurring-months'],
        everyRenewal: flags['every-renewal'] || undefined,
      }),
    );
    this.log(renderPreview(preview));
    return preview;
  }
}
