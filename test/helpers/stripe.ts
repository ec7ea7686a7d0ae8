import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fillPlaceholders, signStripePayload } from '../../src/cli/stripe-fixtures.js';
import type { ProgramFixture, TestApp } from './app.js';

export const FIXTURES = resolve(import.meta.dirname, '../../fixtures/stripe');

/** A fixture of fixtures/stripe as an object, its placeholders filled. */
export function fixture<T = any>(name: string, values: Record<string, string> = {}): T {
  return JSON.parse(fillPlaceholders(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'), values)) as T;
}

export type Delivery = { status: number; body: any };
export type SendOptions = {
  /** Signs with this secret instead of the program's. */
  secret?: string;
  /** The signature's timestamp in seconds; the app clock's now by default. */
  timestamp?: number;
  /** The Stripe-Signature header as given (null: none) instead of a signature of the payload. */
  header?: string | null;
  /** The URL's program instead of the program's id. */
  programId?: number | string;
  /** Extra request headers. */
  headers?: Record<string, string>;
};

/**
 * Sends a Stripe event (an object, or the exact bytes as a string) to the app's webhook endpoint,
 * signed as Stripe signs it: in-process, or over a real connection to `baseUrl`. A body that is not
 * JSON fails the test, as every answer of the endpoint is JSON.
 */
export async function sendWebhook(
  t: TestApp,
  program: Pick<ProgramFixture, 'id' | 'webhookSecret'>,
  event: object | string,
  options: SendOptions & { baseUrl?: string } = {},
): Promise<Delivery> {
  const payload = typeof event === 'string' ? event : JSON.stringify(event, null, 2);
  const timestamp = options.timestamp ?? Math.floor(t.clock.now().getTime() / 1000);
  if (options.baseUrl !== undefined) return postWebhook(options.baseUrl, program, payload, { ...options, timestamp });
  const { url, headers } = signedRequest(program, payload, { ...options, timestamp });
  const response = await t.app.inject({ method: 'POST', url, payload, headers });
  return delivery(response.statusCode, response.body);
}

/** Sends an event's exact bytes, signed at `options.timestamp`, over a real connection to the server at `baseUrl` (a `partnerkit serve` process). */
export async function postWebhook(
  baseUrl: string,
  program: Pick<ProgramFixture, 'id' | 'webhookSecret'>,
  payload: string,
  options: SendOptions & { timestamp: number },
): Promise<Delivery> {
  const { url, headers } = signedRequest(program, payload, options);
  const response = await fetch(`${baseUrl}${url}`, { method: 'POST', body: payload, headers });
  return delivery(response.status, await response.text());
}

function signedRequest(program: Pick<ProgramFixture, 'id' | 'webhookSecret'>, payload: string, options: SendOptions & { timestamp: number }) {
  const header = options.header !== undefined ? options.header : signStripePayload(payload, options.secret ?? program.webhookSecret, options.timestamp);
  return {
    url: `/api/v1/webhooks/stripe/${options.programId ?? program.id}`,
    headers: { 'content-type': 'application/json', ...(header === null ? {} : { 'stripe-signature': header }), ...options.headers },
  };
}

function delivery(status: number, text: string): Delivery {
  try {
    return { status, body: JSON.parse(text) };
  } catch {
    throw new Error(`webhook answer ${status} is not JSON: ${text.slice(0, 200)}`);
  }
}

/** The test app listening on 127.0.0.1 (closed with the app when the test finishes) and a sender over real connections. */
export async function webhookServer(t: TestApp, program: Pick<ProgramFixture, 'id' | 'webhookSecret'>) {
  const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { url, send: (event: object | string, options: SendOptions = {}) => sendWebhook(t, program, event, { ...options, baseUrl: url }) };
}

/**
 * The merchant the fixtures describe: a program with lead user_42 (jenny@shop.example, click A, the
 * fixtures' metadata) and lead user_77 (sam@example.org, found by the e-mail fallback).
 */
export async function stripeMerchant(t: TestApp, programOverrides: Record<string, unknown> = {}) {
  const program = await t.program(programOverrides);
  const a = await t.lead(program, 'user_42', { email: 'jenny@shop.example' });
  await t.lead(program, 'user_77', { email: 'sam@example.org' });
  const values = { CLICK_ID: a.clickId, CUSTOMER_KEY: 'user_42', PROGRAM_ID: String(program.id), EMAIL: 'Sam@Example.org' };
  return { program, clickId: a.clickId, values, load: <T = any>(name: string) => fixture<T>(name, values) };
}

/** A subscription's events as Stripe sends them, and where each ends whatever the order: its stored outcome, reason and sale. */
export const SUBSCRIPTION: Array<[string, string, string | null, string | null]> = [
  ['checkout-subscription', 'recorded', null, 'in_1RpkFirstQm2LdVhB3'],
  ['invoice-first', 'skipped', 'not_subscription_cycle', null], // the checkout's own first invoice
  ['invoice-renewal', 'recorded', null, 'in_1RpkRenewalQm2LdVhJ7'],
  ['invoice-renewal-legacy', 'recorded', null, 'in_1RpkLegacyQm2LdVhK8'],
  ['invoice-paid-renewal', 'recorded', null, 'in_1RpkInvoicePaidQm2LdVhL9'],
  ['invoice-renewal-no-metadata', 'recorded', null, 'in_1RpkNoMetadataQm2LdVhN2'],
  ['invoice-zero-amount', 'skipped', 'non_positive_amount', null],
];

/** The first payment and four paid renewals, 20 % commission each (half-up: 3190 → 638). */
export const SUBSCRIPTION_SALES = [
  { transaction_id: 'in_1RpkFirstQm2LdVhB3', amount_cents: 2900, commission: 580 },
  { transaction_id: 'in_1RpkInvoicePaidQm2LdVhL9', amount_cents: 2900, commission: 580 },
  { transaction_id: 'in_1RpkLegacyQm2LdVhK8', amount_cents: 2900, commission: 580 },
  { transaction_id: 'in_1RpkNoMetadataQm2LdVhN2', amount_cents: 2900, commission: 580 },
  { transaction_id: 'in_1RpkRenewalQm2LdVhJ7', amount_cents: 3190, commission: 638 },
];
