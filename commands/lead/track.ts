import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class LeadTrack extends PartnerkitCommand {
  static override description = "Record a signup: binds your customer key to the click's partner";
  static override examples = ['<%= config.bin %> lead track --api-key pk_live_… --customer-key user_42 --click-id ck_1_… --email ann@example.com'];
  static override flags = {
    'api-key': Flags.string({ description: 'program API key', required: true, env: 'PARTNERKIT_API_KEY' }),
    'customer-key': Flags.string({ description: 'your stable id for this customer', required: true }),
    'click-id': Flags.string({ description: 'the partner_click_id cookie value', atLeastOne: ['click-id', 'coupon-code'] }),
    'coupon-code': Flags.string({ description: "a partner's promotion code, when there is no click" }),
    email: Flags.string({ description: "the customer's e-mail" }),
    name: Flags.string({ description: "the customer's name" }),
  };

  async run() {
    const { flags } = await this.parse(LeadTrack);
    const result = await this.withClient(flags, { apiKey: flags['api-key'] }, (client) =>
      client.sendLead({ customer_key: flags['customer-key'], click_id: flags['click-id'], coupon_code: flags['coupon-code'], email: flags.email, name: flags.name }),
    );
    this.log(renderObject(result));
    return result;
  }
}
