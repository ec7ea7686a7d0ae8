import { createHmac, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
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

/** The event with a new id, so Stripe-side deduplication by event id does not swallow a replay. */
export function withFreshEventId(payload: string): { payload: string; eventId: string } {
  const event = JSON.parse(payload) as { id?: string };
  event.id = `evt_${randomBytes(18).toString('base64url')}`;
  return { payload: `${JSON.stringify(event, null, 2)}\n`, eventId: event.id };
}

/**
 * A Stripe-Signature header over the exact payload, as Stripe computes it: `t=<seconds>,v1=<hex
 * HMAC-SHA256 of "<seconds>.<payload>">`. Node's HMAC rather than the stripe package, whose
 * synchronous signing fails under Deno and which is slow to load (docs/architecture.md §13).
 */
export function signStripePayload(payload: string, secret: string, timestampSeconds: number): string {
  const signature = createHmac('sha256', secret).update(`${timestampSeconds}.${payload}`, 'utf8').digest('hex');
  return `t=${timestampSeconds},v1=${signature}`;
}
