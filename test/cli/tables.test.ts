import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, cliEnv, runCli, runJson, startServe, tempDataDir } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/stripe.js';

// Runs against dist/: `npm run build` first. How tables read (docs/cli.md#tables-and-numbers):
// 80 columns with long names and six-figure amounts, names beside ids, local short times, a
// sentence instead of an empty table.

const ROOT = resolve(import.meta.dirname, '../..');
const NOW = '2026-03-10T15:00:00.000Z';
/** Local times are the terminal's: pinned to a zone that is not UTC, so a UTC instant would show. */
const TZ = 'America/New_York';
const PROGRAM = 'Northwind Traders International Partner Programme for Resellers 2026';
const PARTNER = 'Maximilian Alexander Featherstonehaugh-Cholmondeley of Northwind';
const REASON = "Self-referral: the customer's e-mail address matches the partner's own payout account";
const LONG_ID = 'in_1NG8Du2eZvKYlo2CUI1ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * The functions of src/cli that print a table: renderTable, every exported function that calls a
 * printer, and every method of a command base class that does (commission reviews).
 */
function tablePrinters(): string[] {
  const dir = join(ROOT, 'src/cli');
  const chunks = readdirSync(dir).flatMap((file) =>
    readFileSync(join(dir, file), 'utf8')
      .split(/\nexport function |\n {2}protected async /)
      .slice(1)
      .map((chunk) => ({ name: /^\w+/.exec(chunk)![0], body: chunk.split(/\nexport |\n {2}protected /)[0] })),
  );
  const printers = new Set(['renderTable']);
  for (let size = 0; size !== printers.size; ) {
    size = printers.size;
    for (const { name, body } of chunks) if ([...printers].some((p) => body.includes(`${p}(`))) printers.add(name);
  }
  return [...printers];
}

/** Every command whose source prints a table, by id (`payout list`): a new one fails the test below until it is listed. */
function tableCommands(): string[] {
  const printers = new RegExp(`\\b(${tablePrinters().join('|')})\\(`);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
  return walk(join(ROOT, 'commands'))
    .filter((file) => file.endsWith('.ts') && printers.test(readFileSync(file, 'utf8')))
    .map((file) => relative(join(ROOT, 'commands'), file).replace(/\.ts$/, '').split('/').join(' '))
    .sort();
}

/** The commissions the setup's self-referrals leave on hold (the rule's default mode). */
const HELD = [8, 9];

/**
 * Each table command with arguments that give it rows (in this order: approve and reject take the
 * pending commissions 4 and 5 the setup leaves, payout create the approved commission 6).
 */
const TABLE_COMMANDS: Record<string, string[]> = {
  'commission approve': ['--program', '1', '--ids', '4'],
  'commission list': ['--program', '1'],
  'commission reject': ['--program', '1', '--ids', '5', '--reason', REASON],
  'fraud list': ['--program', '1', '--all'],
  'fraud release': ['--program', '1', '--ids', String(HELD[0])],
  'fraud reject': ['--program', '1', '--ids', String(HELD[1]), '--reason', REASON],
  'key list': ['--program', '1'],
  'partner code list': ['--program', '1'],
  'group list': ['--program', '1'],
  'group moves': ['--program', '1'],
  'program preview': ['--program', '1', '--period', 'all', '--commission-percent', '12.5'],
  'partner applications': ['--program', '1'],
  'payout list': ['--program', '1'],
  'payout preview': ['--program', '1'],
  'payout create': ['--program', '1'],
  'payout mark-paid': ['--batch', '1'],
  'program list': [],
  'report partners': ['1', '--period', '30d'],
  'report performance': ['1', '--period', '30d'],
  'webhook deliveries': ['--endpoint', '1'],
  'webhook endpoint list': ['--program', '1'],
  'webhook events': ['--program', '1'],
};

describe('every table fits 80 columns', () => {
  let dataDir: string | undefined;
  let env: NodeJS.ProcessEnv;
  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'partnerkit-tables-'));
    env = cliEnv(dataDir, { PARTNERKIT_NOW: NOW, TZ });
    const program = await runJson(['program', 'create', '--name', PROGRAM, '--commission-percent', '90', '--hold-days', '0', '--approval', 'manual'], env);
    // An endpoint with a long URL: each sale below leaves it a pending delivery (no server sends them).
    await runJson(['webhook', 'endpoint', 'add', '--program', '1', '--endpoint-url', `https://hooks.northwind-trading-company.example/${'partnerkit-events/'.repeat(4)}incoming`], env);
    await runJson(['partner', 'create', '--name', PARTNER, '--email', 'max@northwind.example'], env);
    await runJson(['partner', 'create', '--name', 'Ada Lovelace', '--email', 'ada@example.com'], env);
    const refs = [(await runJson(['partner', 'enroll', '--program', '1', '--partner', '1'], env)).refCode, (await runJson(['partner', 'enroll', '--program', '1', '--partner', '2'], env)).refCode];
    for (const [i, ref] of refs.entries()) {
      const { click_id } = await runJson(['click', 'record', '--ref', ref], env);
      await runJson(['lead', 'track', '--api-key', program.apiKey, '--customer-key', `customer_${i}`, '--click-id', click_id], env);
    }
    // Six-figure sales: commissions 1 and 2 of the long-named partner, 3 of Ada.
    const sale = (customer: number, cents: number, id: string) =>
      runJson(['sale', 'send', '--api-key', program.apiKey, '--customer-key', `customer_${customer}`, '--amount-cents', String(cents), '--transaction-id', id], env);
    await sale(0, 12_345_678, LONG_ID);
    await sale(0, 98_765_43, `${LONG_ID}-2`);
    await sale(1, 11_111_111, 'in_ada_1');
    await runJson(['commission', 'approve', '--program', '1', '--ids', '1,3'], env);
    await runJson(['commission', 'reject', '--program', '1', '--ids', '2', '--reason', REASON], env);
    await runJson(['payout', 'create', '--program', '1'], env);
    await sale(1, 22_222_222, 'in_ada_2');
    await sale(0, 33_333_333, `${LONG_ID}-3`);
    await sale(0, 44_444_444, `${LONG_ID}-4`);
    await runJson(['commission', 'approve', '--program', '1', '--ids', '6'], env);
    const { click_id } = await runJson(['click', 'record', '--ref', refs[0]], env);
    await runJson(['lead', 'track', '--api-key', program.apiKey, '--customer-key', 'user_42', '--click-id', click_id, '--email', 'jenny@shop.example'], env);
    const set = ['--set', `CLICK_ID=${click_id}`, '--set', 'CUSTOMER_KEY=user_42', '--set', 'EMAIL=jenny@shop.example'];
    await runJson(['webhook', 'replay', join(FIXTURES, 'checkout-one-time.json'), join(FIXTURES, 'customer-created.json'), '--program', '1', ...set], env);
    // A long code, and two self-referrals (the customer's e-mail is the partner's): commissions HELD.
    await runJson(['partner', 'code', 'add', '--program', '1', '--partner', '1', '--code', `NORTHWIND-${'RESELLER-'.repeat(5)}2026`, '--stripe-promotion-code', `promo_${'1Q2w3E4r'.repeat(6)}`], env);
    const self = await runJson(['click', 'record', '--ref', refs[0]], env);
    await runJson(['lead', 'track', '--api-key', program.apiKey, '--customer-key', 'self_1', '--click-id', self.click_id, '--email', 'max@northwind.example'], env);
    for (const [i, id] of HELD.entries()) {
      const held = await runJson(['sale', 'send', '--api-key', program.apiKey, '--customer-key', 'self_1', '--amount-cents', '55555555', '--transaction-id', `${LONG_ID}-self-${i}`], env);
      expect(held.commission_id).toBe(id);
    }
    // Groups with long names, a lead reward and a threshold, and a partner moved by hand (docs/groups.md).
    await runJson(['group', 'add', '--program', '1', '--name', `Northwind ${'Resellers '.repeat(4)}Gold`, '--commission-flat-cents', '123456789', '--lead-reward-cents', '99999999'], env);
    await runJson(['group', 'add', '--program', '1', '--name', `Starter ${'Affiliates '.repeat(4)}`.trim(), '--next-group', '1', '--threshold-metric', 'revenue', '--threshold', '123456789', '--threshold-window', 'all'], env);
    await runJson(['partner', 'group', '--program', '1', '--partner', '1', '--group', '2'], env);
    // An application with a long name and address: only the public page's API takes one, through a server.
    const serve = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env, stdio: 'ignore' });
    const discovery = join(dataDir, 'server.json');
    while (!existsSync(discovery) || !readFileSync(discovery, 'utf8').includes(`"pid":${serve.pid}`)) await new Promise((r) => setTimeout(r, 50));
    const { url } = JSON.parse(readFileSync(discovery, 'utf8'));
    const applied = await fetch(`${url}/api/public/programs/1/applications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: PARTNER, email: 'maximilian.featherstonehaugh-cholmondeley@northwind-trading-company.example' }),
    });
    expect(applied.status).toBe(202);
    serve.kill('SIGTERM');
    await new Promise((r) => serve.once('exit', r));
  }, 300_000);

  test('the commands that print tables are the ones listed here', () => {
    expect(tableCommands()).toEqual(Object.keys(TABLE_COMMANDS).sort());
  });

  test('partners are named beside their ids, amounts and times read as people read them', async () => {
    const commissions = (await runCli(['commission', 'list', '--program', '1', '--status', 'rejected'], env)).stdout.split('\n');
    expect(commissions[0]).toMatch(/^ *id +partner +amount +status +hold until +payout +reason$/);
    // Commission 2: 90 % of 98,765.43, held until the sale's time (hold 0 days) in New York, rejected with a reason cut to fit.
    expect(commissions[2]).toMatch(/^ +2 +#1 Maximilia\S*… +88,888\.89 USD +rejected +Mar 10 11:00 +— +Self-referral\S*…$/);
    const payouts = (await runCli(['payout', 'list', '--program', '1', '--status', 'processing'], env)).stdout.split('\n');
    expect(payouts[0]).toMatch(/^id +batch +partner +amount +status +paid$/);
    expect(payouts.slice(2).map((line) => line.replace(/ +/g, ' ').trim())).toEqual([
      expect.stringMatching(/^1 1 #1 Maximilian Alexander \S+… 111,111\.10 USD processing —$/),
      '2 1 #2 Ada Lovelace 100,000.00 USD processing —',
      '',
    ]);
  }, 60_000);

  // In order: the payouts above are still processing; mark-paid pays them.
  test.each(Object.entries(TABLE_COMMANDS))('%s: a table of lines of at most 80 characters, no JSON, no UTC instants', async (command, args) => {
    const result = await runCli([...command.split(' '), ...args], env);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.some((line) => /^─+( +─+)+$/.test(line)), result.stdout).toBe(true);
    const wide = lines.filter((line) => [...line].length > 80);
    expect(wide, result.stdout).toEqual([]);
    expect(result.stdout).not.toMatch(/[{}]|\d{4}-\d\d-\d\dT\d\d:/);
  }, 60_000);
});

describe('empty lists say so and what to do next', () => {
  test('a data dir with one program and nothing else', async () => {
    const dataDir = tempDataDir();
    const env = cliEnv(dataDir, { PARTNERKIT_NOW: NOW });
    const none = await runCli(['program', 'list'], env);
    expect(none.stdout).toBe(
      `No programs yet. Create one with: npx partnerkit program create --name 'Acme partners' --data-dir ${dataDir}\nor load a demo with: npx partnerkit demo --data-dir ${dataDir}\n`,
    );
    await runJson(['program', 'create', '--name', 'Acme'], env);
    const cases: Array<[string[], string]> = [
      [['payout', 'list', '--program', '1'], `No payouts yet. Create them with: npx partnerkit payout create --program 1 --data-dir ${dataDir}`],
      [['payout', 'list', '--program', '1', '--status', 'paid'], 'No paid payouts.'],
      [['commission', 'list', '--program', '1'], 'No commissions yet in program 1: a sale attributed to a partner earns one.'],
      [['commission', 'list', '--program', '1', '--status', 'approved'], 'No commissions match.'],
      [['payout', 'preview', '--program', '1'], 'Due now\nNothing is due: no approved commission waits to be paid.\nWaiting\nNo approved balance waits (pending commissions count once approved).'],
      [['partner', 'code', 'list', '--program', '1'], `No promotion codes yet. Add one with: npx partnerkit partner code add --program 1 --partner ID --code CODE --data-dir ${dataDir}`],
      [['fraud', 'list', '--program', '1'], 'No commission is on hold.'],
      [['group', 'list', '--program', '1'], `No groups yet: every partner earns the program's reward. Add one with: npx partnerkit group add --program 1 --name NAME --commission-percent N --data-dir ${dataDir}`],
      [['group', 'moves', '--program', '1'], 'No moves yet.'],
      [['program', 'preview', '--program', '1', '--period', '30d'], '20 %, every renewal, over the sales of 30d (2026-02-09 – 2026-03-10, UTC days)\nNo sales in the period: nothing to compare.'],
      [['partner', 'applications', '--program', '1'], 'No applications yet. People apply on the page /apply/1 of the server.'],
      [['partner', 'applications', '--program', '1', '--status', 'pending'], 'No pending applications. People apply on the page /apply/1 of the server.'],
      [['webhook', 'events', '--program', '1'], 'No Stripe events received by program 1 yet: point a Stripe webhook endpoint at /api/v1/webhooks/stripe/1 and set its secret with webhook secret.'],
      [['report', 'partners', '1'], `Program 1 partners, 7d: 2026-03-04 – 2026-03-10 (UTC days), by revenue\nNo partners in program 1 yet. Enroll one with: npx partnerkit partner enroll --program 1 --partner ID --data-dir ${dataDir}`],
    ];
    for (const [args, text] of cases) {
      const result = await runCli(args, env);
      expect([args.join(' '), result.code, result.stdout]).toEqual([args.join(' '), 0, `${text}\n`]);
    }
  }, 120_000);
});

describe('program show', () => {
  test('its commission rules in words, its creation time in local time', async () => {
    const env = cliEnv(tempDataDir(), { PARTNERKIT_NOW: NOW, TZ });
    await runJson(['program', 'create', '--name', 'Acme', '--commission-flat-cents', '500'], env);
    await runJson(['program', 'rule', 'add', '--program', '1', '--product-id', 'pro-plan', '--commission-percent', '30'], env);
    await runJson(['program', 'rule', 'add', '--program', '1', '--product-id', 'team-plan', '--commission-flat-cents', '123456'], env);
    const shown = await runCli(['program', 'show', '--program', '1'], env);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines.find((line) => line.startsWith('commission '))).toBe('commission             5.00 per sale');
    expect(lines.find((line) => line.startsWith('productRules '))).toBe('productRules           pro-plan: 30 %, team-plan: 1,234.56 per sale');
    expect(lines.find((line) => line.startsWith('createdAt '))).toBe('createdAt              Mar 10 11:00');
    // --json keeps the API's shapes.
    expect(await runJson(['program', 'show', '--program', '1'], env)).toMatchObject({
      commission: { type: 'flat', flatCents: 500 }, createdAt: NOW, productRules: [{ productId: 'pro-plan', commission: { type: 'percent', percent: 30 } }, expect.anything()],
    });
  }, 60_000);
});

describe('partner links in --json', () => {
  test('partner enroll and partner links answer the link they print: a path in-process, whole through a server', async () => {
    const dataDir = tempDataDir();
    const env = cliEnv(dataDir, { PARTNERKIT_NOW: NOW });
    await runJson(['program', 'create', '--name', 'Acme', '--landing-url', 'https://shop.example/'], env);
    await runJson(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com'], env);
    await runJson(['partner', 'create', '--name', 'Bo', '--email', 'bo@example.com'], env);
    const enrolled = await runJson(['partner', 'enroll', '--program', '1', '--partner', '1'], env);
    expect(enrolled).toEqual({ id: 1, programId: 1, partnerId: 1, refCode: expect.any(String), createdAt: NOW, link: `/r/${enrolled.refCode}` });
    expect(await runJson(['partner', 'links', '--program', '1', '--partner', '1'], env)).toMatchObject({ refCode: enrolled.refCode, link: `/r/${enrolled.refCode}` });

    const server = await startServe(dataDir);
    const second = await runJson(['partner', 'enroll', '--program', '1', '--partner', '2'], env);
    expect(second.link).toBe(`${server.url}/r/${second.refCode}`);
    expect((await runJson(['partner', 'links', '--program', '1', '--partner', '2'], env)).link).toBe(`${server.url}/r/${second.refCode}`);
  }, 60_000);
});

describe('partnerkit demo', () => {
  test('its partner links redirect to its landing URL', async () => {
    const dataDir = tempDataDir();
    const env = cliEnv(dataDir);
    await runJson(['demo', '--days', '2', '--clicks', '100'], env);
    await startServe(dataDir);
    const { link } = await runJson(['partner', 'links', '--program', '1', '--partner', '1'], env);
    const answer = await fetch(link, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toMatch(/^https:\/\/example\.com\/\?partner_click_id=ck_/);
  }, 60_000);
});
