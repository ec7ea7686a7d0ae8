import { Flags } from '@oclif/core';
import type { Commission } from '../api/index.js';
import { clockFromEnv } from '../clock.js';
import type { PartnerkitClient } from '../sdk/client.js';
import { PartnerkitCommand, sessionTokenFlag, type LocationFlags } from './base.js';
import { idsFlag, partnerNames, renderCommissions } from './payouts.js';

/** The flags of every review command: the program, the commission ids, a session. */
export const reviewFlags = {
  program: Flags.integer({ description: 'program id', required: true, min: 1 }),
  ids: idsFlag,
  'session-token': sessionTokenFlag,
};

/** A rejection's reason. */
export const reasonFlag = Flags.string({ description: 'why, kept with each commission' });

/**
 * The commands that change commissions by id (commission approve and reject, fraud release and
 * reject): the change through the client, then the commissions it answers, with partner names.
 */
export abstract class CommissionReviewCommand extends PartnerkitCommand {
  protected async review(
    flags: LocationFlags & { url?: string; program: number; 'session-token'?: string },
    change: (client: PartnerkitClient) => Promise<Commission[]>,
  ): Promise<Commission[]> {
    const { commissions, names } = await this.withClient(flags, { token: flags['session-token'] }, async (client) => ({
      commissions: await change(client),
      names: await partnerNames(client, flags.program),
    }));
    this.log(renderCommissions(commissions, names, clockFromEnv().now(), 'No commission changed.'));
    return commissions;
  }
}
