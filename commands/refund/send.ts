import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { describeFailure, errorDocument } from '../../src/cli/errors.js';
import { renderObject } from '../../src/cli/output.js';
import { alreadyRecordedRefundId } from '../../src/sdk/tracking.js';

export default class RefundSend extends PartnerkitCommand {
  static override description =
    "Record a refund of a sale through POST /api/v1/track/refund (its commission is reversed, recomputed or clawed back); a refund id recorded earlier is a success (exit 0), any other error exits non-zero with error.code";
  static override examples = [
    '<%= config.bin %> refund send --api-key pk_live_… --transaction-id in_1001 --refund-id re_1',
    '<%= config.bin %> refund send --api-key pk_live_… --transaction-id in_1001 --refund-id re_2 --amount-cents 1500 --reason "damaged item"',
  ];
  static override flags = {
    'api-key': Flags.string({ description: 'program API key (a test key refunds test sales)', required: true, env: 'PARTNERKIT_API_KEY' }),
    'transaction-id': Flags.string({ description: "the refunded sale's transaction id", required: true }),
    'refund-id': Flags.string({ description: 'your refund id (idempotency key)', required: true }),
    'amount-cents': Flags.integer({ description: 'amount refunded in cents (default: everything not refunded yet)' }),
    reason: Flags.string({ description: 'why the sale was refunded' }),
  };

  async run() {
    const { flags } = await this.parse(RefundSend);
    const body = { transaction_id: flags['transaction-id'], refund_id: flags['refund-id'], amount_cents: flags['amount-cents'], reason: flags.reason };
    try {
      const result = await this.withClient(flags, { apiKey: flags['api-key'] }, (client) => client.sendRefund(body));
      this.log(renderObject(result));
      return result;
    } catch (error) {
      // A 409 means an earlier call recorded this refund: success, as for sale send and the SDK's
      // trackRefund (docs/cli.md#sale-send-and-a-transaction-recorded-earlier); --json prints the error document all the same.
      const refundId = alreadyRecordedRefundId(error);
      if (refundId === undefined) throw error;
      this.log(`Refund ${body.refund_id} was already recorded as refund ${refundId}; nothing changed.`);
      return errorDocument(describeFailure(error));
    }
  }
}
