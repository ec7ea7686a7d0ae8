import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../../src/cli/base.js';
import { commissionText, renderObject } from '../../../src/cli/output.js';

export default class ProgramRuleAdd extends PartnerkitCommand {
  static override description = 'Add or replace the commission rule of one product (matched on the sale\'s product_id)';
  static override examples = ['<%= config.bin %> program rule add --program 1 --product-id pro-plan --commission-percent 30'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    'product-id': Flags.string({ description: "the merchant's product id", required: true }),
    'commission-percent': Flags.string({ description: 'commission percentage', exactlyOne: ['commission-percent', 'commission-flat-cents'] }),
    'commission-flat-cents': Flags.integer({ description: 'flat commission in cents', min: 0 }),
  };

  async run() {
    const { flags } = await this.parse(ProgramRuleAdd);
    const rule = await this.withClient(flags, {}, (client) =>
      client.programs.addRule(flags.program, {
        productId: flags['product-id'],
        commissionPercent: flags['commission-percent'] === undefined ? undefined : Number(flags['commission-percent']),
        commissionFlatCents: flags['commission-flat-cents'],
      }),
    );
    this.log(renderObject({ ...rule, commission: commissionText(rule.commission) }));
    return rule;
  }
}
