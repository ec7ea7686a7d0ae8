import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class KeyRetire extends PartnerkitCommand {
  static override description = 'Retire an API key: its calls then answer 401 api_key_rotation_required';
  static override examples = ['<%= config.bin %> key retire --program 1 --key-id 3'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    'key-id': Flags.integer({ description: 'key id (see key list)', required: true, min: 1 }),
  };

  async run() {
    const { flags } = await this.parse(KeyRetire);
    const result = await this.withClient(flags, {}, (client) => client.keys.retire(flags.program, flags['key-id']));
    this.log(renderObject(result));
    return result;
  }
}
