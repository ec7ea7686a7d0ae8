import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderTable } from '../../src/cli/output.js';

export default class KeyList extends PartnerkitCommand {
  static override description = "List a program's API keys (prefixes only, never the secrets)";
  static override examples = ['<%= config.bin %> key list --program 1'];
  static override flags = { program: Flags.integer({ description: 'program id', required: true, min: 1 }) };

  async run() {
    const { flags } = await this.parse(KeyList);
    const keys = await this.withClient(flags, {}, (client) => client.keys.list(flags.program));
    this.log(
      renderTable(
        [
          { header: 'id', value: (k) => k.id },
          { header: 'mode', value: (k) => k.mode },
          { header: 'prefix', value: (k) => `${k.prefix}…` },
          { header: 'status', value: (k) => k.status },
          { header: 'created', value: (k) => k.createdAt },
        ],
        keys,
      ),
    );
    return keys;
  }
}
