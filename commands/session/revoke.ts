import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class SessionRevoke extends PartnerkitCommand {
  static override description = "End every session of a workspace user or a partner (and their unused sign-in links): their tokens are refused from now on";
  static override examples = ['<%= config.bin %> session revoke --email analyst@example.com', '<%= config.bin %> session revoke --partner 2'];
  static override flags = {
    email: Flags.string({ description: "the user's e-mail", exactlyOne: ['email', 'partner'] }),
    partner: Flags.integer({ description: 'partner id', min: 1, exactlyOne: ['email', 'partner'] }),
  };

  async run() {
    const { flags } = await this.parse(SessionRevoke);
    const revoked = await this.withClient(flags, {}, (client) => client.sessions.revoke({ email: flags.email, partnerId: flags.partner }));
    this.log(renderObject(revoked));
    return revoked;
  }
}
