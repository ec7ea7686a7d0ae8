import { onTestFinished } from 'vitest';
import { startFakeStripe, FAKE_STRIPE_KEY, type FakeStripe, type StripeEventLike } from '../../bench/fake-stripe.js';

export { checkoutEvents, FAKE_STRIPE_KEY, type FakeStripe, type StripeEventLike } from '../../bench/fake-stripe.js';

/** The local fake of Stripe's events API (bench/fake-stripe.ts), closed when the test finishes. */
export async function fakeStripe(events: StripeEventLike[] = [], key = FAKE_STRIPE_KEY): Promise<FakeStripe> {
  const fake = await startFakeStripe(events, key);
  onTestFinished(fake.close);
  return fake;
}
