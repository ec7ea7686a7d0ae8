import { readFileSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';
import type { WebhookResult } from '../../src/api/index.js';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { fillPlaceholders, fixtureFiles, freshEventId, shiftEventTimes, signStripePayload } from '../../src/cli/stripe-fixtures.js';
import type { PartnerkitClient } from '../../src/sdk/client.js';
import { PartnerkitError } from '../../src/sdk/errors.js';

type Delivery = {
  file: string;
  /** The id of the event sent; null when the fixture could not be read. */
  event_id: string | null;
  /** The HTTP status; null when nothing was sent or the server was unreachable. */
  status: number | null;
  /** The endpoint's answer, when it was 2xx. */
  result: WebhookResult | null;
  /** Why the delivery failed (any answer but 2xx); null when it succeeded. */
  error: string | null;
};

/** A bar only where someone watches it, and only when there is enough to wait for. */
const PROGRESS_BAR_FROM = 10;

export default class WebhookReplay extends PartnerkitCommand {
  static override description = `Sign Stripe event fixtures with a program's webhook secret and post them to its webhook endpoint

Each {{KEY}} placeholder is replaced (PROGRAM_ID is the --program value; others come from --set),
the event gets a fresh id unless --keep-id, its times are moved so that it was created now by the
receiving service's clock unless --keep-times, and the Stripe-Signature timestamp is that clock's
reading (asked from the server, GET /healthz; PARTNERKIT_NOW in-process). One line per file: HTTP status and outcome; with --json, per file
its event id, HTTP status, the endpoint's answer (result) or the failure (error). Exits 1 when any
delivery is not answered with 2xx.`;

  static override examples = [
    '<%= config.bin %> webhook replay fixtures/stripe --program 1 --set CLICK_ID=ck_1_… --set CUSTOMER_KEY=user_42 --set EMAIL=jenny@example.com',
    '<%= config.bin %> webhook replay fixtures/stripe/checkout-one-time.json --program 1 --secret whsec_… --url http://localhost:3000 --set CLICK_ID=ck_1_… --set CUSTOMER_KEY=user_42 --json',
  ];

  static override strict = false;
  static override args = { paths: Args.string({ description: 'fixture files, or directories of *.json files', required: true }) };
  static override flags = {
    program: Flags.integer({ description: 'program id (the {{PROGRAM_ID}} value and the endpoint)', required: true, min: 1 }),
    secret: Flags.string({ description: "webhook signing secret (default: the program's, looked up through the admin API)" }),
    set: Flags.string({ description: 'placeholder value, KEY=VALUE (repeatable)', multiple: true, multipleNonGreedy: true }),
    'keep-id': Flags.boolean({ description: "keep each fixture's event id (a second replay is then a redelivery)", default: false }),
    'keep-times': Flags.boolean({ description: "keep each fixture's times as written instead of moving them to the service clock's now", default: false }),
  };

  async run() {
    const { argv, flags } = await this.parse(WebhookReplay);
    const files = fixtureFiles(argv as string[]);
    const values: Record<string, string> = { PROGRAM_ID: String(flags.program), ...this.placeholderValues(flags.set ?? []) };
    const showBar = files.length >= PROGRESS_BAR_FROM && Boolean(process.stderr.isTTY) && !this.jsonEnabled();

    const deliveries = await this.withClient(flags, {}, async (client) => {
      const secret = flags.secret ?? (await client.programs.get(flags.program)).webhookSecret;
      // The progress library is loaded only when a bar is shown (docs/architecture.md#command-start-up).
      const cliProgress = showBar ? (await import('cli-progress')).default : undefined;
      const bar = cliProgress ? new cliProgress.SingleBar({ stream: process.stderr }, cliProgress.Presets.shades_classic) : undefined;
      bar?.start(files.length, 0);
      const results: Delivery[] = [];
      for (const file of files) {
        const delivery = await deliver(client, { file, programId: flags.program, secret, values, keepId: flags['keep-id'], keepTimes: flags['keep-times'] });
        results.push(delivery);
        if (bar) bar.increment();
        else if (!this.jsonEnabled()) this.log(describe(delivery));
      }
      bar?.stop();
      return results;
    });

    if (showBar) for (const delivery of deliveries) this.log(describe(delivery));
    const failed = deliveries.filter((d) => d.error !== null).length;
    if (failed > 0) {
      if (!this.jsonEnabled()) this.error(`${failed} of ${deliveries.length} deliveries failed`, { exit: 1 });
      process.exitCode = 1;
    }
    return deliveries;
  }

  private placeholderValues(pairs: string[]): Record<string, string> {
    const values: Record<string, string> = {};
    for (const pair of pairs) {
      const match = /^([A-Z0-9_]+)=(.*)$/s.exec(pair);
      if (!match) this.error(`--set ${pair}: expected KEY=VALUE with KEY in A-Z, 0-9 and _`, { exit: 2 });
      values[match[1]] = match[2];
    }
    return values;
  }
}

type DeliveryInput = { file: string; programId: number; secret: string; values: Record<string, string>; keepId: boolean; keepTimes: boolean };

async function deliver(client: PartnerkitClient, input: DeliveryInput): Promise<Delivery> {
  const delivery: Delivery = { file: input.file, event_id: null, status: null, result: null, error: null };
  try {
    const filled = fillPlaceholders(readFileSync(input.file, 'utf8'), input.values);
    const event = JSON.parse(filled) as { id?: string } & Record<string, unknown>;
    // Asked per delivery: the signature must fall within the tolerance of the server's clock,
    // whether it is pinned or running, however long the replay takes.
    const now = new Date((await client.health()).now);
    if (!input.keepId) event.id = freshEventId();
    if (!input.keepTimes) shiftEventTimes(event, now);
    delivery.event_id = event.id ?? null;
    const payload = input.keepId && input.keepTimes ? filled : `${JSON.stringify(event, null, 2)}\n`;
    const signature = signStripePayload(payload, input.secret, Math.floor(now.getTime() / 1000));
    delivery.result = await client.postStripeEvent(input.programId, payload, signature);
    delivery.status = 200;
  } catch (error) {
    if (error instanceof PartnerkitError) Object.assign(delivery, { status: error.status, error: `${error.code}: ${error.message}` });
    else delivery.error = (error as Error).message;
  }
  return delivery;
}

function describe({ file, status, result, error }: Delivery): string {
  if (result === null) return `${file}  ${status ?? '—'}  failed  ${error}`;
  const reason = result.reason === null ? '' : ` (${result.reason})`;
  const sale = result.sale_id === null ? '' : `  sale ${result.sale_id}`;
  return `${file}  ${status}  ${result.outcome}${reason}${sale}${result.redelivery ? '  (redelivery)' : ''}`;
}
