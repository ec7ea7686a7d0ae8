import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class SessionCreate extends PartnerkitCommand {
  static override description = 'Create a dashboard session token for a user (stored hashed; shown once)';
  static override examples = ['<%= config.bin %> session create --email analyst@example.com --ttl-hours 8'];
  static override flags = {
    email: Flags.string({ description: "the user's e-mail", required: true }),
    'ttl-hours': Flags.integer({ description: 'hours until the token expires', default: 24, min: 1 }),
  };

  async run() {
    const { flags } = await this.parse(SessionCreate);
    const session = await this.withClient(flags, {}, (client) => client.sessions.create({ email: flags.email, ttlHours: flags['ttl-hours'] }));
    this.log(renderObject(session));
    return session;
  }
}
