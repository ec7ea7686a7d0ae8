import { PartnerkitCommand } from '../../src/cli/base.js';
import { formatCount, renderTable } from '../../src/cli/output.js';

export default class ProgramList extends PartnerkitCommand {
  static override description = 'List programs';
  static override examples = ['<%= config.bin %> program list', '<%= config.bin %> program list --json'];

  async run() {
    const { flags } = await this.parse(ProgramList);
    const programs = await this.withClient(flags, {}, (client) => client.programs.list());
    this.log(
      renderTable(
        [
          { header: 'id', value: (p) => p.id },
          { header: 'name', value: (p) => p.name },
          { header: 'commission', value: (p) => (p.commission.type === 'percent' ? `${p.commission.percent} %` : `${formatCount(p.commission.flatCents)} ¢`) },
          { header: 'window', value: (p) => `${p.attributionWindowDays} d` },
          { header: 'hold', value: (p) => `${p.holdDays} d` },
          { header: 'created', value: (p) => p.createdAt },
        ],
        programs,
      ),
    );
    return programs;
  }
}
