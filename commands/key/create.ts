import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class KeyCreate extends PartnerkitCommand {
  static override description = 'Create an API key for a program (shown once)';
  static override examples = ['<%= config.bin %> key create --program 1', '<%= config.bin %> key create --program 1 --test'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    test: Flags.boolean({ description: 'a test key: its sales are test sales', default: false }),
  };

  async run() {
    const { flags } = await this.parse(KeyCreate);
    const key = await this.withClient(flags, {}, (client) => client.keys.create(flags.program, { test: flags.test }));
    this.log(renderObject(key));
    return key;
  }
}
