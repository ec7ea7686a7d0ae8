import { createHmac, randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The JSON files named: a directory stands for its *.json files, in name order. */
export function fixtureFiles(paths: string[]): string[] {
  return paths.flatMap((path) =>
    statSync(path).isDirectory()
      ? readdirSync(path).filter((name) => name.endsWith('.json')).sort().map((name) => join(path, name))
      : [path],
  );
}

/**
 * Replaces every {{KEY}} with its value, escaped for a JSON string (placeholders stand inside
 * strings, so a fixture stays valid JSON). A placeholder without a value is an error.
 */
export function fillPlaceholders(text: string, values: Record<string, string>): string {
  const missing = new Set<string>();
  const filled = text.replace(/\{\{([A-Z0-9_]+)\}\}/g, (placeholder, key: string) => {
    if (!(key in values)) {
      missing.add(key);
      return placeholder;
    }
    return JSON.stringify(values[key]).slice(1, -1);
  });
  if (missing.size > 0) {
    throw new Error(`no value for ${[...missing].map((k) => `{{${k}}}`).join(', ')}; pass --set ${[...missing][0]}=…`);
  }
  return filled;
}

/** A new event id, so deduplication by event id does not swallow a replay. */
export function freshEventId(): string {
  return `evt_${randomBytes(18).toString('base64url')}`;
}

/** Stripe's names for instants (unix seconds): created, start, end, and *_at, *_start, *_end, billing_cycle_anchor. */
const TIME_FIELD = /^(created|start|end|billing_cycle_anchor)$|_(at|start|end)$/;
/** Unix seconds between 2001 and 2286: a field so named holding a smaller number is not an instant. */
const isUnixSeconds = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1e9 && (value as number) < 1e10;

/**
 * Moves every instant of the event by the same amount so that its `created` is `to`: the payment
 * happened "now" by the receiving server's clock, and the times stay in the order written
 * (docs/cli.md#how-commands-reach-the-service). An event without a numeric `created` is left as it is.
 */
export function shiftEventTimes(event: Record<string, unknown>, to: Date): void {
  if (!isUnixSeconds(event.created)) return;
  const delta = Math.floor(to.getTime() / 1000) - event.created;
  const shift = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(shift);
    if (node === null || typeof node !== 'object') return;
    const object = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(object)) {
      if (TIME_FIELD.test(key) && isUnixSeconds(value)) object[key] = value + delta;
      else shift(value);
    }
  };
  shift(event);
}

/**
 * A Stripe-Signature header over the exact payload, as Stripe computes it: `t=<seconds>,v1=<hex
 * HMAC-SHA256 of "<seconds>.<payload>">`. Node's HMAC rather than the stripe package, whose
 * synchronous signing fails under Deno and which is slow to load (docs/architecture.md#command-start-up).
 */
export function signStripePayload(payload: string, secret: string, timestampSeconds: number): string {
  const signature = createHmac('sha256', secret).update(`${timestampSeconds}.${payload}`, 'utf8').digest('hex');
  return `t=${timestampSeconds},v1=${signature}`;
}
