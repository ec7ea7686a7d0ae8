import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { nextCommand } from '../../src/cli/next-command.js';
import { renderObject } from '../../src/cli/output.js';
import { baseUrlFlag, signInOutput, ttlHoursFlag } from '../../src/cli/sessions.js';

export default class SessionCreate extends PartnerkitCommand {
  static override description =
    "Create a dashboard session token for a user (stored hashed; shown once, for scripts) and the dashboard's sign-in link (a one-time code, good for 15 minutes)";
  static override examples = [
    '<%= config.bin %> session create --email analyst@example.com --ttl-hours 8',
    '<%= config.bin %> session create --email analyst@example.com --base-url https://partners.example.com',
  ];
  static override flags = {
    email: Flags.string({ description: "the user's e-mail", required: true }),
    'ttl-hours': ttlHoursFlag,
    'base-url': baseUrlFlag,
  };

  async run() {
    const { flags } = await this.parse(SessionCreate);
    const session = await this.withClient(flags, {}, (client) => client.sessions.create({ email: flags.email, ttlHours: flags['ttl-hours'] }));
    const { result, note } = signInOutput('dashboard', session, flags['base-url'], this.serverUrl(flags), nextCommand(this.config.root, ['serve'], flags));
    this.log(renderObject(result));
    if (note) this.log(`\n${note}`);
    return result;
  }
}
