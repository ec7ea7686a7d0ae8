import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../../src/cli/base.js';
import { renderObject } from '../../../src/cli/output.js';

export default class PartnerCodeAdd extends PartnerkitCommand {
  static override description = "Add a promotion code that attributes sales to a partner (unique per program in any case)";
  static override examples = ['<%= config.bin %> partner code add --program 1 --partner 2 --code SUMMER20 --stripe-promotion-code promo_1Q2w3E'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    partner: Flags.integer({ description: 'partner id (enrolled in the program)', required: true, min: 1 }),
    code: Flags.string({ description: 'the code: 1–64 letters, digits, - or _', required: true }),
    'stripe-promotion-code': Flags.string({ description: 'the Stripe promotion code (promo_…) made for this code' }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PartnerCodeAdd);
    const code = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.codes.add(flags.program, { partnerId: flags.partner, code: flags.code, stripePromotionCode: flags['stripe-promotion-code'] }),
    );
    this.log(renderObject(code));
    return code;
  }
}
