import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { nextCommand } from '../../src/cli/next-command.js';
import { formatWhen, renderTable } from '../../src/cli/output.js';
import { clockFromEnv } from '../../src/clock.js';

export default class KeyList extends PartnerkitCommand {
  static override description = "List a program's API keys (prefixes only, never the secrets)";
  static override examples = ['<%= config.bin %> key list --program 1'];
  static override flags = { program: Flags.integer({ description: 'program id', required: true, min: 1 }) };

  async run() {
    const { flags } = await this.parse(KeyList);
    const keys = await this.withClient(flags, {}, (client) => client.keys.list(flags.program));
    const now = clockFromEnv().now();
    const create = nextCommand(this.config.root, ['key', 'create', '--program', String(flags.program)], flags);
    this.log(
      renderTable(
        [
          { header: 'id', value: (k) => k.id, align: 'right' },
          { header: 'mode', value: (k) => k.mode },
          { header: 'prefix', value: (k) => `${k.prefix}…` },
          { header: 'status', value: (k) => k.status },
          { header: 'created', value: (k) => formatWhen(k.createdAt, now) },
        ],
        keys,
        { empty: `No API keys. Create one with: ${create}` },
      ),
    );
    return keys;
  }
}
