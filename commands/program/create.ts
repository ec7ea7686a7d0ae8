import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';
import { clockFromEnv } from '../../src/clock.js';
import { programDetails, programSettingFlags, programSettings } from '../../src/cli/program-flags.js';

export default class ProgramCreate extends PartnerkitCommand {
  static override description = 'Create a program with a live and a test API key (shown once) and a webhook secret';
  static override examples = [
    '<%= config.bin %> program create --name "Acme partners"',
    '<%= config.bin %> program create --name "Acme" --commission-flat-cents 500 --hold-days 14 --recurring-months 12',
    '<%= config.bin %> program create --name "Acme" --approval manual --min-payout-cents 5000',
    '<%= config.bin %> program create --name "Acme partners" --landing-url https://shop.example.com/',
  ];
  static override flags = {
    name: Flags.string({ description: 'program name', required: true }),
    ...programSettingFlags,
  };

  async run() {
    const { flags } = await this.parse(ProgramCreate);
    const program = await this.withClient(flags, {}, (client) => client.programs.create({ name: flags.name, ...programSettings(flags) }));
    this.log(renderObject(programDetails(program, clockFromEnv().now())));
    this.log('\nStore the API keys now: they are shown only once.');
    return program;
  }
}
