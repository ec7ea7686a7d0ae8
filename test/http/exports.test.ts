import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { DATA_FORMATS, EXPORT_TABLES, type DataFormat, type ExportTable } from '../../src/api/constants.js';
import { DEFAULT_EXPORT_LIMITS, exportProgramData, removeLeftoverExports, RunningExports } from '../../src/domain/exports.js';
import { injectTransport } from '../../src/local.js';
import { PartnerkitClient } from '../../src/sdk/client.js';
import { PartnerkitError } from '../../src/sdk/errors.js';
import { duckdb } from '../../src/store/duckdb.js';
import { appendClicks } from '../../src/store/tracking.js';
import { ADMIN_TOKEN, buildTestApp, rateLimitedBody, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { until } from '../helpers/cli.js';
import { FORMULAS } from '../helpers/factories.js';
import { reportHistory } from '../helpers/history.js';

/*
 * GET /api/programs/:programId/export (docs/exports.md#what-an-export-holds): each table in each format holds
 * the same rows, which are the ones the API and the store hold; ranges, test data and secrets.
 * Credentials and the 401s are the shared authorization suite's.
 */

type Value = string | number | boolean | null;
type Row = Record<string, Value>;

const ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00)$/;

/** One form for a value whatever the format wrote: numbers as numbers, instants as ISO text, empty as null. */
function canonical(value: unknown): Value {
  if (value === null || value === '') return null;
  if (typeof value === 'boolean' || typeof value === 'number') return value;
  const text = String(value);
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (ISO.test(text)) return new Date(text.replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString();
  return text;
}

const canonicalRows = (rows: Array<Record<string, unknown>>): Row[] =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, canonical(v)])));

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'partnerkit-export-test-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** A file read back: CSV by a CSV parser, JSON by JSON.parse, Parquet by DuckDB (with its column types). */
async function readBack(body: Buffer, format: DataFormat): Promise<{ rows: Row[]; types?: Record<string, string> }> {
  if (format === 'csv') return { rows: canonicalRows(parse(body, { columns: true })) };
  if (format === 'json') return { rows: canonicalRows(JSON.parse(body.toString('utf8'))) };
  const path = join(scratch, `${Math.random().toString(36).slice(2)}.parquet`);
  await writeFile(path, body);
  const reader = await duckdb.DuckDBInstance.create(':memory:');
  const connection = await reader.connect();
  try {
    await connection.run("SET TimeZone = 'UTC'");
    const types = await (await connection.run(`DESCRIBE SELECT * FROM read_parquet('${path}')`)).getRowObjectsJson();
    const rows = await (await connection.run(`SELECT * FROM read_parquet('${path}')`)).getRowObjectsJson();
    return { rows: canonicalRows(rows), types: Object.fromEntries(types.map((t) => [String(t.column_name), String(t.column_type)])) };
  } finally {
    connection.closeSync();
    reader.closeSync();
  }
}

function get(t: TestApp, url: string) {
  return t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

async function exported(t: TestApp, programId: number, query: string): Promise<Row[][]> {
  const files: Row[][] = [];
  for (const format of DATA_FORMATS) {
    const response = await get(t, `/api/programs/${programId}/export?${query}&format=${format}`);
    expect(response.statusCode, response.body).toBe(200);
    const { rows } = await readBack(response.rawPayload, format);
    expect(response.headers['partnerkit-export-rows']).toBe(String(rows.length));
    files.push(rows);
  }
  return files;
}

/** The rows of a table, the same in the three formats. */
async function rowsOf(t: TestApp, programId: number, query: string): Promise<Row[]> {
  const [csv, json, parquet] = await exported(t, programId, query);
  expect(json).toEqual(csv);
  expect(parquet).toEqual(csv);
  return csv;
}

const pick = (row: Row, keys: string[]) => Object.fromEntries(keys.map((k) => [k, row[k]]));

/**
 * The report tests' history (programs a and b, test clicks and sales), then in April: every
 * commission approved, payouts created for them and one paid, a refund of t4 after its payout (a
 * clawback), and a test refund.
 */
async function history(options: TestAppOptions = {}) {
  const h = await reportHistory(options);
  const { t, a } = h;
  t.clock.set('2026-04-20T10:00:00.000Z');
  const batch = (await t.app.inject({ method: 'POST', url: `/api/programs/${a.id}/payouts`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json();
  const first = batch.payouts[0];
  await t.app.inject({ method: 'POST', url: `/api/payouts/${first.id}/mark-paid`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.clock.set('2026-04-21T10:00:00.000Z');
  expect((await t.post('/api/v1/track/refund', { transaction_id: 't4', refund_id: 're_t4', amount_cents: 1000, reason: 'partial' }, a.apiKey)).statusCode).toBe(200);
  expect((await t.post('/api/v1/track/refund', { transaction_id: 'tt1', refund_id: 're_tt1', amount_cents: 500 }, a.testApiKey)).statusCode).toBe(200);
  return { ...h, batch };
}

describe('GET /api/programs/:programId/export', () => {
  test('commissions: the rows of the commissions API, in the three formats alike, money in cents and in units', async () => {
    const { t, a } = await history();
    const api = (await get(t, `/api/programs/${a.id}/commissions`)).json() as Array<Record<string, Value>>;
    const rows = await rowsOf(t, a.id, 'table=commissions');
    expect(rows.map((r) => pick(r, ['id', 'sale_id', 'partner_id', 'type', 'amount_cents', 'currency', 'status', 'payout_id', 'created_at', 'hold_until', 'paid_at', 'reason']))).toEqual(
      api.map((c) => ({
        id: c.id, sale_id: c.saleId, partner_id: c.partnerId, type: c.type, amount_cents: c.amountCents, currency: c.currency, status: c.status,
        payout_id: c.payoutId, created_at: c.createdAt, hold_until: c.holdUntil, paid_at: c.paidAt, reason: c.reason,
      })),
    );
    for (const row of rows) expect(row.amount).toBe((row.amount_cents as number) / 100);
    // The refund of t4 after its payout left a clawback of −2.00 (20 % of 10.00), approved.
    expect(rows.at(-1)).toMatchObject({ type: 'clawback', amount_cents: -200, amount: -2, status: 'approved', partner_name: 'p3@example.com', percent_bp: null });
  });

  test('payouts: the rows of the payouts API, with the partner and the number of commissions', async () => {
    const { t, a } = await history();
    const api = (await get(t, `/api/programs/${a.id}/payouts`)).json() as Array<Record<string, any>>;
    expect(api.map((p) => p.status)).toEqual(['paid', 'processing', 'processing']);
    const rows = await rowsOf(t, a.id, 'table=payouts');
    expect(rows).toEqual(
      api.map((p) => ({
        id: p.id, batch_id: p.batchId, partner_id: p.partnerId, partner_name: expect.any(String), currency: p.currency, amount_cents: p.amountCents,
        amount: p.amountCents / 100, commission_count: p.commissionIds.length, status: p.status, created_at: p.createdAt, paid_at: p.paidAt,
      })),
    );
  });

  test('sales: every live sale of the program with its partner and customer; test sales only when asked for, after the live ones', async () => {
    const { t, a, p1, p2, p3 } = await history();
    const live = await rowsOf(t, a.id, 'table=sales');
    expect(live.map((s) => [s.transaction_id, s.amount_cents, s.amount, s.partner_id, s.customer_key, s.is_test])).toEqual([
      ['t2', 3000, 30, p1.partnerId, 'c2', false],
      ['t1', 4999, 49.99, p1.partnerId, 'c1', false],
      ['t4', 2500, 25, p3.partnerId, 'c4', false],
      ['t3', 10001, 100.01, p2.partnerId, 'c3', false],
      ['t1-r1', 4999, 49.99, p1.partnerId, 'c1', false],
    ]);
    expect(live[3]).toMatchObject({ occurred_at: '2026-03-05T23:30:00.000Z', received_at: '2026-03-06T09:00:00.000Z', source: 'api', sale_type: 'payment' });
    const all = await rowsOf(t, a.id, 'table=sales&includeTest=true');
    expect(all.slice(0, 5)).toEqual(live);
    expect(all.slice(5).map((s) => [s.transaction_id, s.amount_cents, s.is_test, s.partner_id])).toEqual([
      ['tt1', 100_000, true, null],
      ['tt2', 100_000, true, null],
      ['tt3', 100_000, true, null],
    ]);
  });

  test('clicks, customers and refunds: exactly the stored rows of the program, test rows only with includeTest', async () => {
    const { t, a, p1, p2, p3 } = await history();
    const stored = await t.store.read((sql) =>
      sql.all<{ click_id: string; is_test: boolean }>('SELECT click_id, is_test FROM clicks WHERE program_id = $1 ORDER BY id', [a.id]),
    );
    const clicks = await rowsOf(t, a.id, 'table=clicks');
    expect(clicks.map((c) => c.click_id)).toEqual(stored.filter((c) => !c.is_test).map((c) => c.click_id));
    expect(clicks.filter((c) => c.partner_id === p1.partnerId)).toHaveLength(8);
    const withTest = await rowsOf(t, a.id, 'table=clicks&includeTest=true');
    expect(withTest.map((c) => [c.click_id, c.is_test])).toEqual(stored.map((c) => [c.click_id, c.is_test]));

    const customers = await rowsOf(t, a.id, 'table=customers');
    expect(customers.map((c) => [c.customer_key, c.partner_id, c.ref_code, c.status])).toEqual([
      ['c1', p1.partnerId, p1.refCode, 'conversion'],
      ['c2', p1.partnerId, p1.refCode, 'conversion'],
      ['c3', p2.partnerId, p2.refCode, 'conversion'],
      ['c4', p3.partnerId, p3.refCode, 'conversion'],
      ['c5', p3.partnerId, p3.refCode, 'lead'],
    ]);
    expect(customers[4]).toMatchObject({ signup_at: '2026-03-06T07:00:00.000Z', first_purchase_at: null });

    const refunds = await rowsOf(t, a.id, 'table=refunds');
    expect(refunds).toEqual([
      {
        id: 1, refund_id: 're_t4', is_test: false, sale_id: 4, partner_id: p3.partnerId, partner_name: 'p3@example.com', ref_code: p3.refCode,
        amount_cents: 1000, amount: 10, currency: 'USD', reason: 'partial', source: 'api', completes_sale: false, received_at: '2026-04-21T10:00:00.000Z',
      },
    ]);
    const allRefunds = await rowsOf(t, a.id, 'table=refunds&includeTest=true');
    expect(allRefunds.map((r) => [r.refund_id, r.is_test])).toEqual([['re_t4', false], ['re_tt1', true]]);
  });

  test("another program's rows are never in an export", async () => {
    const { t, b } = await history();
    expect((await rowsOf(t, b.id, 'table=sales')).map((s) => s.transaction_id)).toEqual(['b-t1']);
    expect(await rowsOf(t, b.id, 'table=payouts')).toEqual([]);
  });

  test('dateFrom and dateTo: dates are whole UTC days, date-times exact and inclusive, either side may stay open; sales by when they were paid', async () => {
    const { t, a } = await history();
    const days = await rowsOf(t, a.id, 'table=clicks&dateFrom=2026-03-04&dateTo=2026-03-06');
    expect(days.map((c) => c.created_at)).toEqual([...Array(2).fill('2026-03-04T12:00:00.000Z'), ...Array(3).fill('2026-03-06T07:00:00.000Z')]);
    const instants = await rowsOf(t, a.id, 'table=clicks&dateFrom=2026-03-04T12:00:00.001Z&dateTo=2026-03-06T07:00:00Z');
    expect(instants).toEqual(days.slice(2));
    expect((await rowsOf(t, a.id, 'table=clicks&dateFrom=2026-03-10')).map((c) => c.created_at)).toEqual(['2026-03-10T15:00:00.000Z']);
    expect(await rowsOf(t, a.id, 'table=clicks&dateTo=2026-02-25')).toEqual([]);
    // t3 was received on 03-06 but paid (occurred_at) on 03-05.
    expect((await rowsOf(t, a.id, 'table=sales&dateFrom=2026-03-05&dateTo=2026-03-05')).map((s) => s.transaction_id)).toEqual(['t3']);
  });

  test('Parquet columns are typed: integers, exact decimals, booleans and UTC instants', async () => {
    const { t, a } = await history();
    const response = await get(t, `/api/programs/${a.id}/export?table=sales&format=parquet`);
    const { types } = await readBack(response.rawPayload, 'parquet');
    expect(types).toMatchObject({
      id: 'BIGINT', is_test: 'BOOLEAN', amount_cents: 'BIGINT', amount: 'DECIMAL(38,2)', currency: 'VARCHAR',
      occurred_at: 'TIMESTAMP WITH TIME ZONE', received_at: 'TIMESTAMP WITH TIME ZONE',
    });
    const payouts = await readBack((await get(t, `/api/programs/${a.id}/export?table=payouts&format=parquet`)).rawPayload, 'parquet');
    expect(payouts.types).toMatchObject({ amount_cents: 'DECIMAL(38,0)', amount: 'DECIMAL(38,2)', commission_count: 'BIGINT' });
  });

  test('headers: the media type, a file name, the length and the number of rows', async () => {
    const { t, a } = await history();
    const expected: Record<DataFormat, string> = { csv: 'text/csv; charset=utf-8', json: 'application/json; charset=utf-8', parquet: 'application/vnd.apache.parquet' };
    for (const format of DATA_FORMATS) {
      const response = await get(t, `/api/programs/${a.id}/export?table=customers&format=${format}`);
      expect(response.headers).toMatchObject({
        'content-type': expected[format],
        'content-disposition': `attachment; filename="program-${a.id}-customers.${format}"`,
        'content-length': String(response.rawPayload.length),
        'partnerkit-export-rows': '5',
      });
    }
    const csv = await get(t, `/api/programs/${a.id}/export?table=customers`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8'); // csv unless another format is asked for
  });

  test('no secret and no visitor hash in any table, whatever the format', async () => {
    const { t, a } = await history();
    const secrets = await t.store.read(async (sql) => [
      ...(await sql.all<{ s: string }>('SELECT key_hash AS s FROM api_keys')),
      ...(await sql.all<{ s: string }>('SELECT webhook_secret AS s FROM programs')),
      ...(await sql.all<{ s: string }>('SELECT token_hash AS s FROM sessions')),
      ...(await sql.all<{ s: string }>('SELECT CAST(visitor_hash AS VARCHAR) AS s FROM clicks WHERE visitor_hash IS NOT NULL')),
      { s: a.apiKey },
      { s: ADMIN_TOKEN },
    ]);
    expect(secrets.length).toBeGreaterThan(4);
    for (const table of EXPORT_TABLES) {
      for (const format of DATA_FORMATS) {
        const body = (await get(t, `/api/programs/${a.id}/export?table=${table}&format=${format}&includeTest=true`)).rawPayload.toString('latin1');
        for (const { s } of secrets) expect(body.includes(s), `${table}.${format} holds ${s}`).toBe(false);
      }
    }
  });

  test.each([
    ['an unknown table', 'table=api_keys', 'table'],
    ['no table', 'format=csv', 'table'],
    ['an unknown format', 'table=clicks&format=xlsx', 'format'],
    ['a date that is not one', 'table=clicks&dateFrom=2026-02-30x', 'dateFrom'],
    ['includeTest that is not a boolean', 'table=clicks&includeTest=maybe', 'includeTest'],
  ])('400 invalid_request naming the field for %s', async (_case, query, field) => {
    const { t, a } = await history();
    const response = await get(t, `/api/programs/${a.id}/export?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ status: 400, code: 'invalid_request', details: { fields: [expect.objectContaining({ field })] } });
  });

  test('400 for a range that ends before it starts; 404 for an unknown program', async () => {
    const { t, a } = await history();
    const backwards = await get(t, `/api/programs/${a.id}/export?table=clicks&dateFrom=2026-03-05&dateTo=2026-03-04`);
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json()).toEqual({
      data: null,
      error: {
        status: 400, name: 'ValidationError', code: 'invalid_request', message: 'Invalid request: dateFrom: dateFrom is after dateTo',
        details: { fields: [{ field: 'dateFrom', message: 'dateFrom is after dateTo' }] },
      },
    });
    const unknown = await get(t, '/api/programs/999/export?table=clicks');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toMatchObject({ status: 404, code: 'not_found' });
  });

  test('progress: fractions between 0 and 1 that never go back', async () => {
    const { t, a } = await history();
    const fractions: number[] = [];
    const path = join(scratch, 'progress.csv');
    const rows = await exportProgramData(t.deps, { kind: 'admin' }, a.id, { table: 'clicks', format: 'csv', includeTest: true }, path, (f) => fractions.push(f));
    expect(rows).toBe(await t.count('clicks', `program_id = ${a.id}`));
    expect(fractions).toEqual([...fractions].sort((x, y) => x - y));
    expect(fractions.every((f) => f >= 0 && f <= 1)).toBe(true);
  });

  test('the temporary file is gone once the answer has been read', async () => {
    const { t, a } = await history();
    const exports = new RunningExports({ dir: join(scratch, 'read'), ...DEFAULT_EXPORT_LIMITS });
    const file = await exports.file(t.deps, { kind: 'admin' }, a.id, { table: 'clicks', format: 'parquet', includeTest: false });
    const path = String(file.stream.path);
    expect(existsSync(path)).toBe(true);
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    await exports.close();
    expect(Buffer.concat(chunks).length).toBe(file.bytes);
    expect(existsSync(dirname(path))).toBe(false);
  });
});

describe('on either engine', () => {
  /** The random tokens of the history (click ids, referral codes) given to the twin as the subject has them. */
  async function sameTokens(subject: TestApp, twin: TestApp) {
    const columns: Array<[string, string]> = [['clicks', 'click_id'], ['customers', 'click_ref'], ['partner_programs', 'ref_code']];
    for (const [table, column] of columns) {
      const rows = await subject.store.read((sql) => sql.all<{ id: number; token: string | null }>(`SELECT id, ${column} AS token FROM ${table} ORDER BY id`));
      await twin.store.transaction(async (sql) => {
        for (const { id, token } of rows) await sql.write({ table, set: `${column} = $2`, where: 'id = $1' }, [id, token]);
      });
    }
  }

  test('every table in every format: byte for byte the file a DuckDB store holding the same history writes', async () => {
    const stores = [await history(), await history({ duckdb: true })];
    for (const { t, a } of stores) {
      // Values CSV must quote (a URL's line breaks are dropped with its other white space), text beyond ASCII.
      await t.click(a, { landing_url: 'https://shop.example/?a=1,b="2"\nnext' });
      await t.lead(a, 'c6', { name: 'Zoë "Z", Jr.\r\nsecond line' });
    }
    await sameTokens(stores[0].t, stores[1].t);
    const queries = [...EXPORT_TABLES.map((table) => `table=${table}&includeTest=true`), 'table=sales&dateFrom=2026-03-05', 'table=clicks&dateTo=2026-03-04T12:00:00Z'];
    for (const query of queries) {
      for (const format of DATA_FORMATS) {
        const [file, twin] = await Promise.all(stores.map(({ t, a }) => get(t, `/api/programs/${a.id}/export?${query}&format=${format}`)));
        expect(file.statusCode).toBe(200);
        expect(file.rawPayload.equals(twin.rawPayload), `${query} as ${format}`).toBe(true);
      }
    }
    const [t, a] = [stores[0].t, stores[0].a];
    expect((await rowsOf(t, a.id, 'table=customers')).at(-1)).toMatchObject({ customer_key: 'c6', name: 'Zoë "Z", Jr.\r\nsecond line', email: null });
    const csv = (await get(t, `/api/programs/${a.id}/export?table=clicks&format=csv`)).rawPayload.toString();
    expect(csv).toContain(',"https://shop.example/?a=1,b=""2""next",,false,2026-04-21T10:00:00.000Z\n');
  });
});

describe('CSV cells a spreadsheet would run', () => {
  /** Partners, customers, sales and refunds whose texts are the formulas; the sales paid out, then refunded: negative clawbacks. */
  async function formulaHistory() {
    const t = await buildTestApp();
    const program = await t.program({ holdDays: 0 });
    for (const [i, text] of FORMULAS.entries()) {
      const partner = await t.partner({ name: text });
      const { refCode } = await t.enroll(program.id, partner.id);
      await t.lead(program, text, { click_id: await t.click({ refCode }), name: text });
      await t.sale(program, { transaction_id: text, customer_key: text, product_id: text, amount_cents: 1000 * (i + 1) });
    }
    expect((await t.app.inject({ method: 'POST', url: `/api/programs/${program.id}/payouts`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).statusCode).toBe(200);
    for (const text of FORMULAS) {
      expect((await t.post('/api/v1/track/refund', { transaction_id: text, refund_id: text, reason: text }, program.apiKey)).statusCode).toBe(200);
    }
    return { t, program };
  }

  test("every table's text cells that start with = + - @ tab or CR get a leading '; numbers, negative ones too, are left as they are", async () => {
    const { t, program } = await formulaHistory();
    const csv = async (table: ExportTable) => {
      const response = await get(t, `/api/programs/${program.id}/export?table=${table}&format=csv`);
      expect(response.statusCode).toBe(200);
      return parse(response.rawPayload, { columns: true }) as Array<Record<string, string>>;
    };
    const neutral = FORMULAS.map((text) => `'${text}`);
    const customers = await csv('customers');
    expect(customers.map((c) => [c.customer_key, c.name, c.partner_name])).toEqual(neutral.map((text) => [text, text, text]));
    const sales = await csv('sales');
    expect(sales.map((s) => [s.transaction_id, s.customer_key, s.product_id, s.partner_name, s.amount_cents])).toEqual(
      neutral.map((text, i) => [text, text, text, text, String(1000 * (i + 1))]),
    );
    const refunds = await csv('refunds');
    expect(refunds.map((r) => [r.refund_id, r.reason, r.partner_name])).toEqual(neutral.map((text) => [text, text, text]));
    const clawbacks = (await csv('commissions')).filter((c) => c.type === 'clawback');
    expect(clawbacks.map((c) => [c.partner_name, c.amount_cents, c.amount])).toEqual(neutral.map((text, i) => [text, String(-200 * (i + 1)), (-2 * (i + 1)).toFixed(2)]));
    expect((await csv('payouts')).map((p) => p.partner_name)).toEqual(neutral);
    // Not one cell of any table starts a formula.
    for (const table of EXPORT_TABLES) {
      for (const row of await csv(table)) for (const cell of Object.values(row)) expect(cell, `${table}: ${cell}`).not.toMatch(/^[=+@\t\r]|^-(?!\d+(\.\d+)?$)/);
    }
    // JSON and Parquet are read by programs, not spreadsheets: their texts are as stored.
    const json = (await get(t, `/api/programs/${program.id}/export?table=customers&format=json`)).json() as Array<Record<string, string>>;
    expect(json.map((c) => c.name)).toEqual(FORMULAS);
  });
});

/**
 * Clicks enough for an export larger than what a connection's buffers hold (about 8 MB of CSV), so
 * a client that stops reading stops the server's stream of the file.
 */
async function bigClicks(t: TestApp, programId: number, partnerProgramId: number) {
  const ids = Array.from({ length: 4000 }, (_, i) => programId * 100_000 + i + 1);
  await t.store.transaction((sql) =>
    appendClicks(sql, ids.map((id) => ({
      id, click_id: `ck_${id}_big`, program_id: programId, partner_program_id: partnerProgramId, landing_url: 'https://shop.example/'.repeat(100),
      referrer: null, is_test: false, created_at: t.clock.now(), visitor_hash: null,
    }))),
  );
}

/** A client that asks for an export, reads the answer's head, then stops reading; `received` counts what it read in all. */
async function stalledReader(url: string, path: string): Promise<{ socket: Socket; head: string; closed: Promise<number> }> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(`GET ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`);
  onTestFinished(() => void socket.destroy());
  const first = await new Promise<Buffer>((resolve, reject) => {
    socket.once('data', resolve);
    socket.once('error', reject);
  });
  socket.pause();
  let received = first.length;
  socket.on('data', (chunk: Buffer) => (received += chunk.length));
  const closed = new Promise<number>((resolve) => {
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(received));
  });
  return { socket, head: first.toString('latin1').split('\r\n\r\n')[0], closed };
}

describe('exports at once, stalled readers and leftovers', () => {
  /** Programs a, b and c, each with the clicks of a large export, on an app listening on a port. */
  async function listening(exports: TestAppOptions['exports'] = {}) {
    const dir = join(scratch, Math.random().toString(36).slice(2));
    const t = await buildTestApp({ exports: { dir, ...exports } });
    const programs = [await t.program(), await t.program(), await t.program()];
    for (const p of programs) await bigClicks(t, p.id, p.partnerProgramId);
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    return { t, dir, url, programs };
  }

  test('at most 2 exports of a program and 4 in all at once: 429 rate_limited with retry_after_seconds and Retry-After; a closed answer frees its place', async () => {
    const { t, dir, url, programs: [a, b, c] } = await listening();
    const path = (p: { id: number }) => `/api/programs/${p.id}/export?table=clicks`;
    const held = [await stalledReader(url, path(a)), await stalledReader(url, path(a))];
    for (const { head } of held) expect(head).toMatch(/^HTTP\/1.1 200 OK/);
    const third = await get(t, path(a));
    expect(third.statusCode).toBe(429);
    expect(third.headers).toMatchObject({ 'retry-after': '5', connection: 'close' });
    expect(third.json()).toEqual(rateLimitedBody(`Too many exports of program ${a.id} at once`, 5));
    held.push(await stalledReader(url, path(b)), await stalledReader(url, path(b)));
    const fifth = await get(t, path(c));
    expect(fifth.statusCode).toBe(429);
    expect(fifth.headers['retry-after']).toBe('5');
    expect(fifth.json()).toEqual(rateLimitedBody('Too many exports at once on this server', 5));
    held[0].socket.destroy();
    await until(() => readdirSync(dir).length === 3);
    expect((await get(t, path(c))).statusCode).toBe(200);
  });

  test('an answer the client stops reading is closed after the stall time, and its file removed', async () => {
    const { dir, url, programs: [a] } = await listening({ stallMs: 300 });
    const reader = await stalledReader(url, `/api/programs/${a.id}/export?table=clicks`);
    const length = Number(/content-length: (\d+)/i.exec(reader.head)![1]);
    expect(readdirSync(dir)).toHaveLength(1);
    await until(() => readdirSync(dir).length === 0);
    reader.socket.resume();
    expect(await reader.closed).toBeLessThan(length);
  });

  test('at start, the export directories of processes no longer running (or of an earlier process with this pid) are removed; a running one keeps its own', async () => {
    const dir = join(scratch, 'leftovers');
    const dead = 2 ** 22 + 1; // above Linux's largest pid: no such process
    for (const name of [`${dead}-aaaa`, `${process.pid}-bbbb`, `${process.ppid}-cccc`]) {
      mkdirSync(join(dir, name), { recursive: true });
      await writeFile(join(dir, name, 'export.csv'), 'id\n1\n');
    }
    expect((await removeLeftoverExports(dir)).sort()).toEqual([`${dead}-aaaa`, `${process.pid}-bbbb`].sort());
    expect(readdirSync(dir)).toEqual([`${process.ppid}-cccc`]);
  });
});

describe("the SDK's exports.download", () => {
  test('hands the file to the sink and answers its rows and bytes; an error answer throws and reaches no sink', async () => {
    const { t, a } = await history();
    const client = new PartnerkitClient({ transport: injectTransport(t.app), token: ADMIN_TOKEN });
    const chunks: Uint8Array[] = [];
    const sink = async (body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) => {
      for await (const chunk of body) chunks.push(chunk);
    };
    const result = await client.exports.download(a.id, { table: 'customers', format: 'csv', includeTest: true }, sink);
    const direct = (await get(t, `/api/programs/${a.id}/export?table=customers&format=csv&includeTest=true`)).rawPayload;
    expect(Buffer.concat(chunks)).toEqual(direct);
    expect(result).toEqual({ rows: 5, bytes: direct.length });

    chunks.length = 0;
    const refused = await client.exports.download(999, { table: 'clicks' }, sink).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PartnerkitError);
    expect(refused).toMatchObject({ status: 404, code: 'not_found' });
    expect(chunks).toEqual([]);
  });
});

describe('a member export', () => {
  test.each(EXPORT_TABLES.map((table) => [table]) as Array<[ExportTable]>)(
    '%s: a member may export; removal ends the session (401), and a former member\'s new session gets 403',
    async (table) => {
      const { t, a } = await reportHistory();
      await t.admin('POST', `/programs/${a.id}/members`, { email: 'analyst@example.com' });
      const asMember = async (token: string) =>
        (await t.app.inject({ method: 'GET', url: `/api/programs/${a.id}/export?table=${table}`, headers: { authorization: `Bearer ${token}` } })).statusCode;
      const { token } = await t.admin('POST', '/sessions', { email: 'analyst@example.com' });
      expect(await asMember(token)).toBe(200);
      await t.admin('POST', `/programs/${a.id}/members/remove`, { email: 'analyst@example.com' });
      expect(await asMember(token)).toBe(401);
      expect(await asMember((await t.admin('POST', '/sessions', { email: 'analyst@example.com' })).token)).toBe(403);
    },
  );
});
