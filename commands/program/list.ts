import { PartnerkitCommand } from '../../src/cli/base.js';
import { nextCommand } from '../../src/cli/next-command.js';
import { commissionText, formatWhen, renderTable } from '../../src/cli/output.js';
import { clockFromEnv } from '../../src/clock.js';

export default class ProgramList extends PartnerkitCommand {
  static override description = 'List programs';
  static override examples = ['<%= config.bin %> program list', '<%= config.bin %> program list --json'];

  async run() {
    const { flags } = await this.parse(ProgramList);
    const programs = await this.withClient(flags, {}, (client) => client.programs.list());
    const now = clockFromEnv().now();
    const next = (args: string[]) => nextCommand(this.config.root, args, flags);
    this.log(
      renderTable(
        [
          { header: 'id', value: (p) => p.id, align: 'right' },
          { header: 'name', value: (p) => p.name, shrink: 'end' },
          { header: 'commission', value: (p) => commissionText(p.commission), align: 'right' },
          { header: 'window', value: (p) => `${p.attributionWindowDays} d`, align: 'right' },
          { header: 'hold', value: (p) => `${p.holdDays} d`, align: 'right' },
          { header: 'created', value: (p) => formatWhen(p.createdAt, now) },
        ],
        programs,
        { empty: `No programs yet. Create one with: ${next(['program', 'create', '--name', 'Acme partners'])}\nor load a demo with: ${next(['demo'])}` },
      ),
    );
    return programs;
  }
}
