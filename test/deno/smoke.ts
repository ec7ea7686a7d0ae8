// Deno smoke test: the core (app, store, domain) on an in-memory DuckDB under Deno 2, and the server listening.
// Run by `npm run test:deno` after the build; exits non-zero on any failure.
import assert from 'node:assert/strict';
import { buildApp } from '../../dist/src/app.js';
import { fixedClock } from '../../dist/src/clock.js';
import { sha256 } from '../../dist/src/domain/secrets.js';
import { DEFAULT_EDGE } from '../../dist/src/http/deps.js';
import { DuckDBStore } from '../../dist/src/store/duckdb-store.js';

const adminToken = 'pka_deno_smoke';
const store = await DuckDBStore.open(':memory:');
const app = await buildApp({
  store,
  clock: fixedClock('2026-03-01T12:00:00Z'),
  adminTokenHash: sha256(adminToken),
  rateLimit: { max: 100, windowSeconds: 1 },
  ...DEFAULT_EDGE,
  pages: new URL('../../dist/web/', import.meta.url).pathname,
});
const admin = { authorization: `Bearer ${adminToken}` };

try {
  const program = (await app.inject({ method: 'POST', url: '/api/admin/programs', headers: admin, payload: { name: 'Deno' } })).json();
  assert.equal(program.id, 1);
  const partner = (await app.inject({ method: 'POST', url: '/api/admin/partners', headers: admin, payload: { name: 'P', email: 'p@example.com' } })).json();
  const enrollment = (
    await app.inject({ method: 'POST', url: `/api/admin/programs/${program.id}/partners`, headers: admin, payload: { partnerId: partner.id } })
  ).json();

  const click = await app.inject({ method: 'POST', url: '/api/v1/track/click', payload: { ref: enrollment.refCode } });
  assert.equal(click.statusCode, 200);
  const lead = await app.inject({
    method: 'POST',
    url: '/api/v1/track/lead',
    headers: { authorization: `Bearer ${program.apiKey}` },
    payload: { customer_key: 'deno-user', click_id: click.json().click_id },
  });
  assert.equal(lead.statusCode, 200);
  assert.deepEqual(lead.json(), { success: true, customer_id: 1, message: 'Lead tracked' });

  // A sale over a real connection: Deno's HTTP server in front of the batched sale path and its appends.
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const sale = await fetch(`${url}/api/v1/track/sale`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${program.apiKey}` },
    body: JSON.stringify({ transaction_id: 'in_deno_1', amount_cents: 4999, customer_key: 'deno-user' }),
  });
  assert.equal(sale.status, 200);
  const recorded = await sale.json();
  assert.deepEqual(recorded, { success: true, sale_id: recorded.sale_id, commission_id: recorded.commission_id, message: 'Sale and commission recorded' });
  assert.ok(Number.isInteger(recorded.sale_id) && recorded.sale_id > 0, `sale_id ${recorded.sale_id}`);
  assert.ok(Number.isInteger(recorded.commission_id) && recorded.commission_id > 0, `commission_id ${recorded.commission_id}`);

  const report = await fetch(`${url}/api/tracking/performance/${program.id}`, { headers: admin });
  assert.equal(report.status, 200);
  const { data, metrics } = await report.json();
  // 20 % of 49.99 is 9.998, rounded half up to 10.00.
  assert.deepEqual(
    [metrics.totalSales, metrics.totalRevenue, metrics.totalConversions, metrics.totalPartnersCommission],
    [1, 49.99, 1, 10],
  );
  assert.deepEqual(data.at(-1), { date: '2026-03-01', period: '2026-03-01', clicks: 1, leads: 1, conversions: 1, revenue: 49.99, partners: 1, sales: 0, commission: 10 });
  // The pages and their assets, served by @fastify/static under Deno's HTTP server.
  const page = await fetch(`${url}/dashboard`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('cache-control'), 'no-store');
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(await page.text())![1];
  const asset = await fetch(`${url}${script}`);
  assert.equal(asset.status, 200);
  assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.ok((await asset.text()).length > 10_000);
  console.log(`deno smoke: ok (Deno ${Deno.version.deno})`);
} finally {
  await app.close();
  await store.close();
}
