import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { describeFailure, errorDocument } from '../../src/cli/errors.js';
import { renderObject } from '../../src/cli/output.js';
import type { SaleRequest } from '../../src/api/index.js';
import { alreadyRecordedSaleId } from '../../src/sdk/tracking.js';

export default class SaleSend extends PartnerkitCommand {
  static override description = 'Record a sale through POST /api/v1/track/sale; a transaction id recorded earlier is a success (exit 0), any error exits non-zero with its error.code';
  static override examples = [
    '<%= config.bin %> sale send --api-key pk_live_… --customer-key user_42 --amount-cents 4999 --transaction-id in_1001',
    '<%= config.bin %> sale send --api-key pk_live_… --click-id ck_1_… --amount-cents 990 --transaction-id in_1002 --currency eur --test',
  ];
  static override flags = {
    'api-key': Flags.string({ description: 'program API key', required: true, env: 'PARTNERKIT_API_KEY' }),
    'customer-key': Flags.string({ description: 'customer key given at signup', atLeastOne: ['customer-key', 'click-id', 'coupon-code'] }),
    'click-id': Flags.string({ description: 'click id (fallback attribution)' }),
    'coupon-code': Flags.string({ description: "a partner's promotion code (last attribution step)" }),
    'amount-cents': Flags.integer({ description: 'amount in cents, tax included', required: true }),
    'transaction-id': Flags.string({ description: 'your payment id (idempotency key)', required: true }),
    currency: Flags.string({ description: 'USD, EUR or VND (default USD)' }),
    'product-id': Flags.string({ description: 'product id for per-product commission rules' }),
    recurring: Flags.boolean({ description: 'a recurring (renewal) charge', default: false }),
    'sale-type': Flags.string({ description: 'payment or subscription', options: ['payment', 'subscription'] }),
    'subscription-id': Flags.string({ description: 'your subscription id (recurring commission durations count from its first sale)' }),
    'occurred-at': Flags.string({ description: 'when the payment happened (ISO 8601 with offset)' }),
    test: Flags.boolean({ description: 'record a test sale (additional_data.test_mode)', default: false }),
  };

  async run() {
    const { flags } = await this.parse(SaleSend);
    const body: SaleRequest = {
      transaction_id: flags['transaction-id'],
      amount_cents: flags['amount-cents'],
      customer_key: flags['customer-key'],
      click_id: flags['click-id'],
      coupon_code: flags['coupon-code'],
      currency: flags.currency,
      product_id: flags['product-id'],
      is_recurring: flags.recurring || undefined,
      sale_type: flags['sale-type'] as SaleRequest['sale_type'],
      subscription_id: flags['subscription-id'],
      occurred_at: flags['occurred-at'],
      additional_data: flags.test ? { test_mode: true } : undefined,
    };
    const apiKey = flags['api-key'];
    try {
      const result = await this.withClient(flags, { apiKey }, (client) => client.sendSale(body));
      this.log(renderObject(result));
      return result;
    } catch (error) {
      // A 409 means an earlier call recorded this transaction: success, as the SDK's trackSale
      // answers it (docs/cli.md#sale-send-and-a-transaction-recorded-earlier); --json prints the error document all the same.
      const saleId = alreadyRecordedSaleId(error);
      if (saleId === undefined) throw error;
      const kind = flags.test || apiKey.startsWith('pk_test_') ? 'test sale' : 'sale';
      this.log(
        saleId === null
          ? `Transaction ${body.transaction_id} was already recorded, without a sale (its attribution window had expired); nothing changed.`
          : `Transaction ${body.transaction_id} was already recorded as ${kind} ${saleId}; nothing changed.`,
      );
      return errorDocument(describeFailure(error));
    }
  }
}
