import { Flags } from '@oclif/core';
import { DEFAULT_COMMISSION_PERCENT } from '../../src/api/index.js';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class ProgramCreate extends PartnerkitCommand {
  static override description = 'Create a program with a live and a test API key (shown once) and a webhook secret';
  static override examples = [
    '<%= config.bin %> program create --name "Acme partners"',
    '<%= config.bin %> program create --name "Acme" --commission-flat-cents 500 --hold-days 14 --recurring-months 12',
    '<%= config.bin %> program create --name "Acme partners" --landing-url https://shop.example.com/',
  ];
  static override flags = {
    name: Flags.string({ description: 'program name', required: true }),
    'commission-percent': Flags.string({ description: `commission percentage per sale (default ${DEFAULT_COMMISSION_PERCENT})`, exclusive: ['commission-flat-cents'] }),
    'commission-flat-cents': Flags.integer({ description: 'flat commission per sale, in cents', min: 0 }),
    'attribution-window-days': Flags.integer({ description: 'days from click (or signup) in which a sale is attributed', default: 90, min: 1 }),
    'hold-days': Flags.integer({ description: 'days a commission stays pending', default: 30, min: 0 }),
    'recurring-months': Flags.integer({ description: 'months of renewals that earn commission (omit: every renewal; 0: first payment only)', min: 0 }),
    'landing-url': Flags.string({ description: 'the page partner links send visitors to (http or https)' }),
  };

  async run() {
    const { flags } = await this.parse(ProgramCreate);
    const program = await this.withClient(flags, {}, (client) =>
      client.programs.create({
        name: flags.name,
        commissionPercent: flags['commission-percent'] === undefined ? undefined : Number(flags['commission-percent']),
        commissionFlatCents: flags['commission-flat-cents'],
        attributionWindowDays: flags['attribution-window-days'],
        holdDays: flags['hold-days'],
        recurringMonths: flags['recurring-months'] ?? null,
        landingUrl: flags['landing-url'] ?? null,
      }),
    );
    this.log(renderObject(program));
    this.log('\nStore the API keys now: they are shown only once.');
    return program;
  }
}
