import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';
import { clockFromEnv } from '../../src/clock.js';
import { programDetails, programSettingFlags, programSettings } from '../../src/cli/program-flags.js';

export default class ProgramUpdate extends PartnerkitCommand {
  static override description = "Change a program's settings: the flags given change, the others stay; new sales and commissions follow them";
  static override examples = [
    '<%= config.bin %> program update --program 1 --approval manual --min-payout-cents 5000',
    '<%= config.bin %> program update --program 1 --commission-percent 25 --hold-days 14',
    '<%= config.bin %> program update --program 1 --every-renewal',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    name: Flags.string({ description: 'program name' }),
    ...programSettingFlags,
  };

  async run() {
    const { flags } = await this.parse(ProgramUpdate);
    const program = await this.withClient(flags, {}, (client) => client.programs.update(flags.program, { name: flags.name, ...programSettings(flags) }));
    this.log(renderObject(programDetails(program, clockFromEnv().now())));
    return program;
  }
}
