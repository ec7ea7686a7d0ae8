import { describe, expect, test } from 'vitest';
import { trackSaleFromInvoice, type StripeInvoice } from '../../src/sdk/index.js';
import { fixture } from '../helpers/stripe.js';

const values = { CLICK_ID: 'ck_1_abcdefghijklmnopqrstuv', CUSTOMER_KEY: 'user_42', PROGRAM_ID: '1' };
const invoice = (name: string): StripeInvoice & { id: string } => fixture(name, values).data.object;

describe('trackSaleFromInvoice (the self-hosted helper)', () => {
  test('a renewal with new-style metadata: the trackSale input', () => {
    expect(trackSaleFromInvoice(invoice('invoice-renewal'))).toEqual({
      action: 'track',
      input: {
        customerExternalId: 'user_42',
        clickId: 'ck_1_abcdefghijklmnopqrstuv',
        amount: 3190,
        invoiceId: 'in_1RpkRenewalQm2LdVhJ7',
        currency: 'usd',
        isRecurring: true,
        saleType: 'subscription',
        subscriptionId: 'sub_1RpkSubQm2LdVhA8',
      },
    });
  });

  test('a renewal of an older API version: metadata and subscription from the legacy location', () => {
    expect(trackSaleFromInvoice(invoice('invoice-renewal-legacy'))).toMatchObject({
      action: 'track',
      input: { customerExternalId: 'user_42', amount: 2900, invoiceId: 'in_1RpkLegacyQm2LdVhK8', subscriptionId: 'sub_1RpkSubQm2LdVhA8' },
    });
  });

  test('the newer location wins when both are present; the legacy one is the fallback when the newer is empty', () => {
    const both = { ...invoice('invoice-renewal'), subscription_details: { metadata: { partner_customer_key: 'legacy_key' } } };
    expect(trackSaleFromInvoice(both)).toMatchObject({ action: 'track', input: { customerExternalId: 'user_42' } });
    const emptyNewer = invoice('invoice-renewal');
    emptyNewer.parent!.subscription_details!.metadata = {};
    emptyNewer.subscription_details = { metadata: { partner_customer_key: 'legacy_key' } };
    expect(trackSaleFromInvoice(emptyNewer)).toEqual({
      action: 'track',
      input: {
        customerExternalId: 'legacy_key', amount: 3190, invoiceId: 'in_1RpkRenewalQm2LdVhJ7', currency: 'usd',
        isRecurring: true, saleType: 'subscription', subscriptionId: 'sub_1RpkSubQm2LdVhA8',
      },
    });
  });

  test.each([
    ['the first invoice (subscription_create)', 'invoice-first', {}, 'not_subscription_cycle'],
    ['a manual invoice', 'invoice-renewal', { billing_reason: 'manual' }, 'not_subscription_cycle'],
    ['a zero amount', 'invoice-zero-amount', {}, 'non_positive_amount'],
    ['a negative amount', 'invoice-renewal', { amount_paid: -100 }, 'non_positive_amount'],
    ['no metadata', 'invoice-renewal-no-metadata', {}, 'no_customer_key'],
    ['a click id but no customer key', 'invoice-renewal', { parent: { subscription_details: { metadata: { partner_click_id: 'ck_1_x' } } } }, 'no_customer_key'],
  ])('%s is skipped: %s', (_name, name, change, reason) => {
    expect(trackSaleFromInvoice({ ...invoice(name), ...change })).toEqual({ action: 'skip', reason });
  });
});
