import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';
import { clockFromEnv } from '../../src/clock.js';
import { programDetails } from '../../src/cli/program-flags.js';

export default class ProgramShow extends PartnerkitCommand {
  static override description = 'Show a program, its product rules and webhook secret (never an API key)';
  static override examples = ['<%= config.bin %> program show --program 1'];
  static override flags = { program: Flags.integer({ description: 'program id', required: true, min: 1 }) };

  async run() {
    const { flags } = await this.parse(ProgramShow);
    const program = await this.withClient(flags, {}, (client) => client.programs.get(flags.program));
    this.log(renderObject(programDetails(program, clockFromEnv().now())));
    return program;
  }
}
