import { Flags } from '@oclif/core';
import { APPLICATION_STATUSES, type ApplicationStatus } from '../../src/api/constants.js';
import { renderApplications } from '../../src/cli/applications.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { clockFromEnv } from '../../src/clock.js';

export default class PartnerApplications extends PartnerkitCommand {
  static override description = "List a program's partner applications, newest first (people apply on /apply/<program>)";
  static override examples = ['<%= config.bin %> partner applications --program 1', '<%= config.bin %> partner applications --program 1 --status pending'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    status: Flags.string({ description: 'only applications of this status', options: [...APPLICATION_STATUSES] }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(PartnerApplications);
    const status = flags.status as ApplicationStatus | undefined;
    const { data } = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.applications.list(flags.program, status));
    const none = status === undefined ? 'No applications yet' : `No ${status} applications`;
    this.log(renderApplications(data, clockFromEnv().now(), `${none}. People apply on the page /apply/${flags.program} of the server.`));
    return data;
  }
}
