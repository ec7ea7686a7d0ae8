// Deno end-to-end test: the built CLI, every command, run with `deno run` (docs/cli.md#node-20-and-deno-2).
// `serve` listens on 127.0.0.1 with port 0; through it a program is provisioned, a click, a lead and
// a sale are sent, fixtures/stripe is replayed as docs/webhooks.md shows, and the
// report is printed; once the server has stopped, the same commands open the data dir themselves.
// Run by `npm run test:deno` after the build; exits non-zero on any failure.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname!, '../..');
const BIN = join(ROOT, 'bin/run.js');
const FIXTURES = join(ROOT, 'fixtures/stripe');
const NOW = '2026-03-01T12:00:00Z';

const dataDir = mkdtempSync(join(tmpdir(), 'partnerkit-deno-'));
const { PARTNERKIT_URL: _ignored, ...inherited } = Deno.env.toObject();
const env = { ...inherited, PARTNERKIT_DATA_DIR: dataDir, PARTNERKIT_NOW: NOW, NO_COLOR: '1' };
const decoder = new TextDecoder();

function partnerkit(args: string[], options: Deno.CommandOptions = {}) {
  return new Deno.Command(Deno.execPath(), { args: ['run', '--allow-all', BIN, ...args], env, clearEnv: true, stdin: 'null', ...options });
}

/** Runs a command to its end; fails on a non-zero exit. */
async function run(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await partnerkit(args).output();
  const out = decoder.decode(stdout);
  assert.equal(code, 0, `partnerkit ${args.join(' ')} exited ${code}: ${out}${decoder.decode(stderr)}`);
  return out;
}

/** Runs a command with --json and parses its one document. */
async function json<T = any>(args: string[]): Promise<T> {
  return JSON.parse(await run([...args, '--json'])) as T;
}

const serve = partnerkit(['serve', '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn'], { stdout: 'null', stderr: 'piped' }).spawn();
let serverLog = '';
const logRead = (async () => {
  for await (const chunk of serve.stderr.pipeThrough(new TextDecoderStream())) serverLog += chunk;
})();

try {
  // The server is up once its discovery file names it; every command below goes through it.
  const discovery = join(dataDir, 'server.json');
  const deadline = Date.now() + 60_000;
  while (!existsSync(discovery) || !readFileSync(discovery, 'utf8').includes(`"pid":${serve.pid}`)) {
    assert.ok(Date.now() < deadline, `serve did not start: ${serverLog}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { url } = JSON.parse(readFileSync(discovery, 'utf8')) as { url: string };
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const program = await json(['program', 'create', '--name', 'Deno shop']);
  assert.equal(program.id, 1);
  assert.deepEqual((await json(['program', 'list'])).map((p: { name: string }) => p.name), ['Deno shop']);
  assert.equal((await json(['program', 'show', '--program', '1'])).webhookSecret, program.webhookSecret);
  assert.equal((await json(['program', 'rule', 'add', '--program', '1', '--product-id', 'ebook', '--commission-flat-cents', '300'])).productId, 'ebook');
  const key = await json(['key', 'create', '--program', '1']);
  assert.equal((await json(['key', 'list', '--program', '1'])).length, 3);
  assert.equal((await json(['key', 'retire', '--program', '1', '--key-id', String(key.id)])).status, 'retired');
  await json(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com']);
  const { refCode } = await json(['partner', 'enroll', '--program', '1', '--partner', '1']);
  await json(['member', 'add', '--program', '1', '--email', 'owner@shop.example']);
  await json(['member', 'add', '--program', '1', '--email', 'intern@shop.example']);
  await json(['member', 'remove', '--program', '1', '--email', 'intern@shop.example']);
  const session = await json(['session', 'create', '--email', 'owner@shop.example']);

  // A click, a lead and a sale of 49.99 (20 %: 10.00 commission).
  const { click_id } = await json(['click', 'record', '--ref', refCode]);
  const lead = await json(['lead', 'track', '--api-key', program.apiKey, '--customer-key', 'user_42', '--click-id', click_id, '--email', 'jenny@shop.example']);
  assert.equal(lead.success, true);
  const sale = await json(['sale', 'send', '--api-key', program.apiKey, '--customer-key', 'user_42', '--amount-cents', '4999', '--transaction-id', 'in_deno_1']);
  assert.equal(sale.message, 'Sale and commission recorded');

  // The fixtures, signed under Deno (docs/webhooks.md).
  const replay = await run(['webhook', 'replay', FIXTURES, '--program', '1', '--set', `CLICK_ID=${click_id}`, '--set', 'CUSTOMER_KEY=user_42', '--set', 'EMAIL=Jenny@Shop.example']);
  const outcomes = replay.trim().split('\n').map((line) => line.replace(`${FIXTURES}/`, '').split(/\s{2,}/).slice(0, 3).join(' '));
  assert.deepEqual(outcomes, [
    'checkout-async-pending.json 200 skipped (payment_not_completed)',
    'checkout-async-succeeded.json 200 recorded',
    'checkout-email-fallback.json 200 recorded',
    'checkout-one-time.json 200 recorded',
    'checkout-subscription.json 200 recorded',
    'customer-created.json 200 ignored (unhandled_event_type)',
    'invoice-first.json 200 skipped (not_subscription_cycle)',
    'invoice-paid-renewal.json 200 recorded',
    'invoice-payment-paid.json 200 recorded (payment_linked)',
    'invoice-renewal-legacy.json 200 recorded',
    'invoice-renewal-no-metadata.json 200 recorded',
    'invoice-renewal.json 200 recorded',
    'invoice-zero-amount.json 200 skipped (non_positive_amount)',
    'refund-full.json 200 recorded (refund_recorded)',
    'refund-invoice-basil.json 200 recorded (refund_recorded)',
    'refund-invoice-legacy.json 200 recorded (refund_recorded)',
    'refund-partial.json 200 recorded (refund_recorded)',
  ]);
  assert.equal((await json(['webhook', 'events', '--program', '1', '--limit', '50'])).length, 17);

  // The report: the sale and the eight recorded payments, 49.99 + 99.00 + 19.99 + 54.99 + 4 × 29.00 + 31.90 = 371.87,
  // net of the four refunds (54.99 and 31.90 in full, 10.00 of a 29.00 renewal, 25.00 of the 99.00 checkout): 249.98
  // in 7 paid sales. Commission, 20 % rounded half up on what is left of each: 10.00 + 14.80 + 4.00 + 3 × 5.80 + 3.80 = 50.00.
  const expected = { totalSales: 7, totalRevenue: 249.98, totalPartnersCommission: 50, totalConversions: 1, totalClicks: 1, totalRefunded: 121.89 };
  const report = await json(['report', 'performance', '1', '--session-token', session.token]);
  assert.deepEqual(pick(report.metrics, Object.keys(expected)), expected);
  const printed = await run(['report', 'performance', '1']);
  assert.match(printed, /249\.98/);
  console.log(printed);
  // The sales as a file, streamed from the server: the sale and the eight payments.
  const served = await json(['export', '1', '--table', 'sales', '--out', join(dataDir, 'served.csv')]);
  assert.equal(served.rows, 9);

  // A new signing secret, then the server stops: SIGTERM drains, closes the database, removes server.json.
  assert.equal((await json(['webhook', 'secret', '--program', '1', '--secret', 'whsec_deno_e2e_secret'])).webhookSecret, 'whsec_deno_e2e_secret');
  serve.kill('SIGTERM');
  assert.equal((await serve.status).code, 0, serverLog);
  assert.equal(existsSync(discovery), false);

  // Without a server every command opens the data dir itself: the same report, and the demo loader.
  assert.deepEqual(pick((await json(['report', 'performance', '1'])).metrics, Object.keys(expected)), expected);
  const written = await json(['export', '1', '--table', 'sales', '--out', join(dataDir, 'written.csv')]);
  assert.equal(readFileSync(join(dataDir, 'written.csv'), 'utf8'), readFileSync(join(dataDir, 'served.csv'), 'utf8'));
  assert.equal(written.rows, 9);
  const demo = await json(['demo', '--days', '7', '--clicks', '500']);
  assert.equal(demo.counts.clicks, 500);
  console.log(`deno cli: ok (Deno ${Deno.version.deno}; every command through deno run, with and without a server)`);
} finally {
  try {
    serve.kill('SIGKILL');
  } catch {
    // already stopped
  }
  await serve.status;
  await logRead;
  rmSync(dataDir, { recursive: true, force: true });
}

function pick(object: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, object[k]]));
}
