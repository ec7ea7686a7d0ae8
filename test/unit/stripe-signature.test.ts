import Stripe from 'stripe';
import { describe, expect, test } from 'vitest';
import { signStripePayload } from '../../src/cli/stripe-fixtures.js';

const SECRET = 'whsec_test_0123456789abcdef';
const T = 1_772_366_400; // 2026-03-01T12:00:00Z

describe('signStripePayload, the one Stripe signer of the CLI, the tests and the bench (docs/cli.md#node-20-and-deno-2)', () => {
  test.each([
    ['an event', JSON.stringify({ id: 'evt_1', type: 'checkout.session.completed', data: { object: {} } }, null, 2)],
    ['non-ASCII text, signed as its UTF-8 bytes', JSON.stringify({ id: 'evt_2', type: 'x', data: { object: { name: 'Zoë — 東京 🙂' } } })],
    ['an empty body', ''],
  ])('%s: the header Stripe itself writes', (_name, payload) => {
    expect(signStripePayload(payload, SECRET, T)).toBe(Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: T }));
  });

  test("stripe's verification accepts it, and refuses it for another secret or another body", async () => {
    const payload = JSON.stringify({ id: 'evt_3', object: 'event', type: 'invoice.paid', data: { object: {} } });
    const header = signStripePayload(payload, SECRET, T);
    expect(header).toMatch(/^t=1772366400,v1=[0-9a-f]{64}$/);
    const event = await Stripe.webhooks.constructEventAsync(payload, header, SECRET, 300, undefined, T * 1000);
    expect(event.id).toBe('evt_3');
    await expect(Stripe.webhooks.constructEventAsync(payload, header, 'whsec_other_secret_00', 300, undefined, T * 1000)).rejects.toThrow(/signature/i);
    await expect(Stripe.webhooks.constructEventAsync(`${payload} `, header, SECRET, 300, undefined, T * 1000)).rejects.toThrow(/signature/i);
  });
});
