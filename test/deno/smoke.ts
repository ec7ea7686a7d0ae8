// Deno smoke test: the core (app, store, domain) on an in-memory DuckDB under Deno 2.
// Run by `npm run test:deno` after the build; exits non-zero on any failure.
import assert from 'node:assert/strict';
import { buildApp } from '../../dist/src/app.js';
import { fixedClock } from '../../dist/src/clock.js';
import { sha256 } from '../../dist/src/domain/secrets.js';
import { Store } from '../../dist/src/store/db.js';

const adminToken = 'pka_deno_smoke';
const store = await Store.open(':memory:');
const app = await buildApp({
  store,
  clock: fixedClock('2026-03-01T12:00:00Z'),
  adminTokenHash: sha256(adminToken),
  rateLimit: { max: 100, windowSeconds: 1 },
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
  console.log(`deno smoke: ok (Deno ${Deno.version.deno})`);
} finally {
  await app.close();
  await store.close();
}
