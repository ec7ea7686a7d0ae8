import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fillPlaceholders } from '../src/cli/stripe-fixtures.js';

/*
 * A local server that answers GET /v1/events as Stripe's API does (docs/stripe-reconciliation.md#the-api-base-url):
 * a list object of events newest first with `has_more`, paged by `limit` and `starting_after`,
 * filtered by `created[gte]` and `types[]`; 401 with Stripe's error body for another key. Tests set
 * the failures it answers first, and may hold a request until they let it go.
 */

export const FAKE_STRIPE_KEY = 'rk_test_51FakeRestrictedKey0123';

/** An event as Stripe lists it. */
export type StripeEventLike = { id: string; type: string; created: number; [key: string]: unknown };

export type FakeStripe = {
  url: string;
  events: StripeEventLike[];
  /** Every request: its query and whether it was authorized. */
  requests: Array<{ query: URLSearchParams; authorized: boolean }>;
  /** Statuses answered to the next requests, in order (429 asks the library to retry, as Stripe does). */
  failures: number[];
  /** While set, a request for a page after `starting_after` waits until it resolves. */
  hold?: Promise<void>;
};

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${Math.random().toString(36).slice(2)}`, ...headers });
  res.end(JSON.stringify(body));
}

function answer(fake: FakeStripe, req: IncomingMessage, res: ServerResponse, key: string): void | Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const authorized = req.headers.authorization === `Bearer ${key}`;
  fake.requests.push({ query: url.searchParams, authorized });
  if (url.pathname !== '/v1/events' || req.method !== 'GET') return send(res, 404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
  if (!authorized) {
    return send(res, 401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${String(req.headers.authorization).slice(7, 15)}****` } });
  }
  const failure = fake.failures.shift();
  if (failure === 429) return send(res, 429, { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests' } }, { 'stripe-should-retry': 'true' });
  if (failure !== undefined) return send(res, failure, { error: { type: 'api_error', message: 'Something went wrong on our end' } });

  const gte = url.searchParams.get('created[gte]');
  const types = [...url.searchParams.entries()].filter(([name]) => /^types\[\d*\]$/.test(name)).map(([, value]) => value);
  const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 10));
  const after = url.searchParams.get('starting_after');
  const listed = [...fake.events]
    .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1))
    .filter((e) => (gte === null || e.created >= Number(gte)) && (types.length === 0 || types.includes(e.type)));
  const from = after === null ? 0 : listed.findIndex((e) => e.id === after) + 1;
  const page = listed.slice(from, from + limit);
  const body = { object: 'list', url: '/v1/events', has_more: from + limit < listed.length, data: page };
  if (after !== null && fake.hold !== undefined) return fake.hold.then(() => send(res, 200, body));
  send(res, 200, body);
}

/** The fake API on 127.0.0.1, serving `events` to `key`, until closed. */
export async function startFakeStripe(events: StripeEventLike[] = [], key = FAKE_STRIPE_KEY): Promise<FakeStripe & { close(): Promise<void> }> {
  const fake: FakeStripe = { url: '', events, requests: [], failures: [] };
  const server = createServer((req, res) => void answer(fake, req, res, key));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return Object.assign(fake, { close });
}

/** The fixture's text: the first fixtures/stripe above this module, from bench/ (tests) or dist/bench/ (npm run bench). */
function checkoutFixture(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'fixtures/stripe/checkout-one-time.json');
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  throw new Error('fixtures/stripe/checkout-one-time.json not found');
}

/**
 * `count` paid one-time checkouts of the fixture, attributed by its metadata (`values` fill it),
 * each its own session and payment, created one second apart ending at `lastCreated`.
 */
export function checkoutEvents(count: number, values: Record<string, string>, lastCreated: number, prefix = 'evt_rec'): StripeEventLike[] {
  const checkout = checkoutFixture();
  return Array.from({ length: count }, (_, i) => {
    const event = JSON.parse(fillPlaceholders(checkout, values));
    const n = String(i + 1).padStart(5, '0');
    event.id = `${prefix}_${n}`;
    event.created = lastCreated - (count - 1 - i);
    event.data.object.id = `cs_rec_${prefix}_${n}`;
    event.data.object.payment_intent = `pi_rec_${prefix}_${n}`;
    return event as StripeEventLike;
  });
}
