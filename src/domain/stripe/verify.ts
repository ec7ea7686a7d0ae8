import { AppError, invalidRequest } from '../../errors.js';
import { parseEnvelope, type VerifiedEvent } from './schema.js';

/**
 * docs/webhooks.md#signature-and-tolerance: a signature timestamp more than 300 s older than the service clock is
 * stale, and one more than 300 s ahead of it is refused the same way.
 */
const SIGNATURE_TOLERANCE_SECONDS = 300;

// Loaded on the first webhook: the package takes about 130 ms to import, which every CLI command
// building an in-process app would otherwise pay.
let stripeModule: Promise<typeof import('stripe')> | undefined;

function signatureError(error: unknown, signedAt: number, now: Date): AppError {
  const message = error instanceof Error ? error.message : '';
  if (/No stripe-signature header/i.test(message)) return new AppError('invalid_signature', 'Missing Stripe-Signature header');
  if (/tolerance/i.test(message)) return clockMismatch(signedAt, now, 'old');
  return new AppError('invalid_signature', "The Stripe-Signature header does not match the body and this program's webhook secret");
}

/**
 * A signature dated outside the tolerance names both clocks, so whoever signed it (a fixture
 * replay, a test) can see which one to fix (docs/webhooks.md#signature-and-tolerance).
 */
function clockMismatch(signedAt: number, now: Date, direction: 'old' | 'in the future'): AppError {
  const signed = new Date(signedAt * 1000).toISOString();
  const service = now.toISOString();
  return new AppError(
    'invalid_signature',
    `The signature timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} s ${direction}: signed at ${signed}, the service clock reads ${service}` +
      ' (sign with the service clock: GET /healthz tells it)',
    { signed_at: signed, service_now: service, tolerance_seconds: SIGNATURE_TOLERANCE_SECONDS },
  );
}

/**
 * The header's `t=` as the stripe package reads it (comma-separated `key=value` items, the last `t`
 * wins), so the future check looks at the very timestamp the signature was verified with. A `t` that
 * is not a decimal integer is refused: the package would read `abc` as NaN, which passes its age
 * check, and `12abc` as 12 (docs/webhooks.md#signature-and-tolerance).
 */
function signedAtSeconds(header: string): number {
  let timestamp = Number.NaN;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key !== 't') continue;
    if (!/^[0-9]+$/.test(value ?? '')) throw new AppError('invalid_signature', 'The Stripe-Signature timestamp t must be a decimal integer (Unix seconds)');
    timestamp = Number(value);
  }
  return timestamp;
}

/**
 * Verifies the Stripe-Signature header over the raw body with the official library, measuring the
 * tolerance against the service clock (`now`), and returns the event's envelope. Nothing is parsed before.
 */
export async function verifyStripeEvent(rawBody: Buffer, header: string | undefined, secret: string, now: Date): Promise<VerifiedEvent> {
  const { default: Stripe } = await (stripeModule ??= import('stripe'));
  const signedAt = header === undefined ? Number.NaN : signedAtSeconds(header);
  let event: unknown;
  try {
    event = await Stripe.webhooks.constructEventAsync(rawBody, header ?? '', secret, SIGNATURE_TOLERANCE_SECONDS, undefined, now.getTime());
  } catch (error) {
    // Thrown by JSON.parse after the signature matched: a signed body that is not JSON.
    if (error instanceof SyntaxError) throw invalidRequest([{ field: 'body', message: 'Body is not valid JSON' }]);
    throw signatureError(error, signedAt, now);
  }
  // The library refuses only old timestamps; a signature dated ahead could be replayed until then.
  if (signedAt - Math.floor(now.getTime() / 1000) > SIGNATURE_TOLERANCE_SECONDS) throw clockMismatch(signedAt, now, 'in the future');
  return parseEnvelope(event);
}
