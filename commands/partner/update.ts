import { Flags } from '@oclif/core';
import { PARTNER_STATUSES, PAYOUT_METHODS, type PartnerStatus, type PayoutMethod } from '../../src/api/constants.js';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

/** A flag's value, or null when it is the empty string (which clears the setting). */
const orNull = <T extends string>(value: string | undefined) => (value === '' ? null : (value as T | undefined));

export default class PartnerUpdate extends PartnerkitCommand {
  static override description =
    "Change a partner's name, e-mail, payout details (an empty value clears one) or status (inactive: its links and attribution stop and its sessions end)";
  static override examples = [
    '<%= config.bin %> partner update --partner 1 --payout-method paypal --payout-email jane.payouts@example.com',
    '<%= config.bin %> partner update --partner 1 --name "Jane Doe" --email jane@example.com',
    '<%= config.bin %> partner update --partner 1 --payout-method "" --payout-email ""',
    '<%= config.bin %> partner update --partner 1 --status inactive',
  ];
  static override flags = {
    partner: Flags.integer({ description: 'partner id', required: true, min: 1 }),
    name: Flags.string({ description: 'partner name' }),
    email: Flags.string({ description: 'partner e-mail (unique)' }),
    'payout-method': Flags.string({ description: 'how the partner is paid', options: [...PAYOUT_METHODS, ''] }),
    'payout-email': Flags.string({ description: 'the PayPal or Wise account the partner is paid to' }),
    status: Flags.string({ description: 'inactive: links, attribution and sessions stop; active: links and attribution resume', options: [...PARTNER_STATUSES] }),
  };

  async run() {
    const { flags } = await this.parse(PartnerUpdate);
    const partner = await this.withClient(flags, {}, (client) =>
      client.partners.update(flags.partner, {
        name: flags.name,
        email: flags.email,
        payoutMethod: orNull<PayoutMethod>(flags['payout-method']),
        payoutEmail: orNull(flags['payout-email']),
        status: flags.status as PartnerStatus | undefined,
      }),
    );
    this.log(renderObject(partner));
    return partner;
  }
}
