import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Stripe from 'stripe';
import { fillPlaceholders } from '../../src/cli/stripe-fixtures.js';
import type { ProgramFixture, TestApp } from './app.js';

export const FIXTURES = resolve(import.meta.dirname, '../../fixtures/stripe');

/** A fixture of fixtures/stripe as an object, its placeholders filled. */
export function fixture<T = any>(name: string, values: Record<string, string> = {}): T {
  return JSON.parse(fillPlaceholders(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'), values)) as T;
}

export type Delivery = { status: number; body: any };
export type SendOptions = { secret?: string; timestamp?: number; header?: string | null; programId?: number | string };

/**
 * The test app listening on 127.0.0.1 (closed by buildTestApp's cleanup) and a sender that signs
 * each payload with stripe's own test-header helper, timestamped by the app's clock.
 */
export async function webhookServer(t: TestApp, program: ProgramFixture) {
  const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const send = async (event: object | string, options: SendOptions = {}): Promise<Delivery> => {
    const payload = typeof event === 'string' ? event : JSON.stringify(event, null, 2);
    const timestamp = options.timestamp ?? Math.floor(t.clock.now().getTime() / 1000);
    const header =
      options.header !== undefined
        ? options.header
        : Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? program.webhookSecret, timestamp });
    const response = await fetch(`${url}/api/v1/webhooks/stripe/${options.programId ?? program.id}`, {
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json', ...(header === null ? {} : { 'stripe-signature': header }) },
    });
    return { status: response.status, body: await response.json() };
  };
  return { url, send };
}
