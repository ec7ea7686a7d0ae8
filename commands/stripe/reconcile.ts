import { Flags } from '@oclif/core';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { renderReconcileReport } from '../../src/cli/stripe-reconcile.js';

export default class StripeReconcile extends PartnerkitCommand {
  static override description = "Record the program's Stripe events that never arrived as webhooks, read from Stripe's API with the program's restricted key";
  static override examples = [
    '<%= config.bin %> stripe reconcile --program 1 --dry-run',
    '<%= config.bin %> stripe reconcile --program 1 --since 2026-03-01T00:00:00Z --json',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    since: Flags.string({ description: 'events created from this ISO 8601 instant on (default: the 30 days Stripe keeps)' }),
    'dry-run': Flags.boolean({ description: 'only count the events that would be recorded' }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(StripeReconcile);
    const report = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.stripe.reconcile(flags.program, { since: flags.since, dryRun: flags['dry-run'] }),
    );
    this.log(renderReconcileReport(report));
    return report;
  }
}
