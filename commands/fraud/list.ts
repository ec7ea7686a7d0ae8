import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderFraudEvents } from '../../src/cli/fraud.js';
import { clockFromEnv } from '../../src/clock.js';

export default class FraudList extends PartnerkitCommand {
  static override description = "List the fraud events of a program's held commissions (--all: every fraud event), newest first";
  static override examples = ['<%= config.bin %> fraud list --program 1', '<%= config.bin %> fraud list --program 1 --all --json'];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    all: Flags.boolean({ description: 'every fraud event, flagged ones and resolved holds included' }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(FraudList);
    const events = await this.withClient(flags, { token: flags['session-token'] }, (client) => client.fraud.events(flags.program, flags.all ? 'all' : 'held'));
    this.log(renderFraudEvents(events, clockFromEnv().now(), flags.all ? 'No fraud events.' : 'No commission is on hold.'));
    return events;
  }
}
