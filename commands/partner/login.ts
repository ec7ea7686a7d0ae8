import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { nextCommand } from '../../src/cli/next-command.js';
import { renderObject } from '../../src/cli/output.js';
import { baseUrlFlag, signInOutput, ttlHoursFlag } from '../../src/cli/sessions.js';

export default class PartnerLogin extends PartnerkitCommand {
  static override description =
    "Create a partner portal session (stored hashed; shown once, for scripts) and print the portal's sign-in link to send the partner (a one-time code, good for 15 minutes)";
  static override examples = [
    '<%= config.bin %> partner login --partner 2',
    '<%= config.bin %> partner login --partner 2 --ttl-hours 168 --base-url https://partners.example.com',
  ];
  static override flags = {
    partner: Flags.integer({ description: 'partner id', required: true, min: 1 }),
    'ttl-hours': ttlHoursFlag,
    'base-url': baseUrlFlag,
  };

  async run() {
    const { flags } = await this.parse(PartnerLogin);
    const session = await this.withClient(flags, {}, (client) => client.partners.createSession(flags.partner, { ttlHours: flags['ttl-hours'] }));
    const { result, note } = signInOutput('portal', session, flags['base-url'], this.serverUrl(flags), nextCommand(this.config.root, ['serve'], flags));
    this.log(renderObject(result));
    if (note) this.log(`\n${note}`);
    return result;
  }
}
