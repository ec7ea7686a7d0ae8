import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Clock } from './clock.js';
import { listenError, runningServer, type DataDir, type Discovery } from './config.js';
import { removeLeftoverExports } from './domain/exports.js';
import type { AppDeps, EdgeSettings } from './http/deps.js';
import { listPrograms } from './domain/provisioning.js';
import { openLocalApp, type LocalApp } from './local.js';
import { DEFAULT_WORKER_SETTINGS, DeliveryWorker, type WorkerSettings } from './domain/outbound/worker.js';
import { ReconcileJob } from './domain/stripe/reconcile-job.js';
import { MailChannel, smtpTransport } from './domain/mail/sender.js';
import { baseUrl } from './domain/mail/settings.js';
import { unsubscribeKey } from './domain/mail/notifications.js';

export type ServeOptions = {
  dir: DataDir;
  clock: Clock;
  host: string;
  port: number;
  rateLimit: { max: number; windowSeconds: number };
  log?: AppDeps['log'];
  connections?: AppDeps['connections'];
  edge: EdgeSettings;
  /** On stop, how long requests in flight may take before their connections are closed (docs/exports.md#shutdown). */
  shutdownTimeoutSeconds: number;
  /** The outbound webhooks' delivery worker (docs/outbound-webhooks.md#delivery); its defaults when absent. */
  worker?: WorkerSettings;
  /** How often every program with a Stripe API key is reconciled (docs/stripe-reconciliation.md#every-few-minutes); 0 or absent: never. */
  stripeReconcileEveryMs?: number;
  /** Mail through SMTP (docs/mail.md#configuration); absent, nothing is mailed. */
  mail?: MailOptions;
};

/** `30s`, `15m`, `2h`, `45` (seconds) or `0` (never) as milliseconds; anything else throws a message naming the forms. */
export function parseInterval(input: string): number {
  const match = /^(\d{1,6})(s|m|h)?$/.exec(input.trim());
  if (!match) throw new Error(`an interval is a number of seconds, or with s, m or h (30s, 15m, 1h); 0 is never; not ${input}`);
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 's' | 'm' | 'h'];
}

/** `serve`'s mail flags: the SMTP server, the From, and the base of links (else the address it listens on). */
export type MailOptions = { smtpUrl: string; from: string; publicUrl?: string };

/** How long `serve` lets requests in flight finish once asked to stop. */
export const SHUTDOWN_TIMEOUT_SECONDS = 10;

/** The pages `npm run build` writes: dist/web, beside this module's dist/src. */
export const PAGES_DIR = fileURLToPath(new URL('../web/', import.meta.url));

export type RunningServer = LocalApp & { url: string; stop(): Promise<void> };

/**
 * Listens on the data dir: removes the export files a killed server left, writes the discovery
 * file so CLI commands go through this process, and on stop lets in-flight requests finish for up
 * to the shutdown timeout, closes the connections still open (a client that stopped reading an
 * export among them), checkpoints and closes the database, removes the file (docs/exports.md#shutdown).
 * It runs the outbox's delivery worker meanwhile (docs/outbound-webhooks.md#delivery), which also
 * sends the mail when there is an SMTP server (docs/mail.md#delivery).
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  await checkPort(options.host, options.port);
  const local = await openLocalApp(options.dir, options.clock, {
    rateLimit: options.rateLimit,
    log: options.log,
    connections: options.connections,
    edge: options.edge,
    pages: PAGES_DIR,
  });
  let address: string;
  try {
    await removeLeftoverExports(options.dir.exportsDir);
    address = await local.app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await local.close();
    throw listenError(error, options.host, options.port);
  }
  const url = address.replace('[::1]', 'localhost');
  const discovery: Discovery = { url, pid: process.pid, startedAt: options.clock.now().toISOString() };
  writeFileSync(options.dir.discoveryFile, JSON.stringify(discovery), { mode: 0o600 });
  const transport = options.mail && (await smtpTransport(options.mail.smtpUrl));
  if (options.mail) local.deps.mail = { from: options.mail.from, publicUrl: baseUrl(options.mail.publicUrl ?? url), unsubscribeKey: unsubscribeKey(local.deps.adminTokenHash) };
  const channels = transport ? [new MailChannel(local.deps, transport)] : [];
  const worker = new DeliveryWorker(local.deps, options.worker ?? DEFAULT_WORKER_SETTINGS, channels).start();
  const everyMs = options.stripeReconcileEveryMs ?? 0;
  const reconcile = everyMs > 0 ? new ReconcileJob({ ...local.deps, stripeApi: local.deps.stripeApi ?? {} }, everyMs, (line) => local.app.log.info(line)).start() : undefined;
  let stopping: Promise<void> | undefined;
  return {
    ...local,
    url,
    stop() {
      stopping ??= (async () => {
        const deadline = setTimeout(() => local.app.server.closeAllConnections(), options.shutdownTimeoutSeconds * 1000);
        try {
          await worker.stop();
          await reconcile?.stop();
          transport?.close();
          await local.close();
        } finally {
          clearTimeout(deadline);
          // Several servers may share a data dir on PostgreSQL: the file is removed by the one it names.
          if (runningServer(options.dir)?.pid === process.pid) rmSync(options.dir.discoveryFile, { force: true });
        }
      })();
      return stopping;
    },
  };
}

/**
 * Listens on the port and lets it go at once, so a port in use fails start-up before the data dir
 * is created or its database opened (docs/operations.md#start-up-errors).
 */
async function checkPort(host: string, port: number): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (error) {
    throw listenError(error, host, port);
  }
  await new Promise((resolve) => probe.close(resolve));
}

/** What to do next, with `command` rendering a CLI command line that reaches this server's data dir. */
export async function startupHint(server: RunningServer, command: (args: string[]) => string): Promise<string> {
  const programs = await listPrograms(server.deps);
  if (programs.length > 0) return `${programs.length} program(s) on this data dir. Try: ${command(['program', 'list'])}`;
  return `No programs yet. Create one in another terminal:\n  ${command(['program', 'create', '--name', 'My program', '--landing-url', 'https://example.com/'])}`;
}
