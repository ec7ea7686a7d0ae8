import { Errors, Flags } from '@oclif/core';
import type { LogLevel } from 'fastify';
import { DEFAULT_WORKER_SETTINGS } from '../src/domain/outbound/worker.js';
import { clockFromEnv } from '../src/clock.js';
import { redactedUrl } from '../src/config.js';
import { PartnerkitCommand } from '../src/cli/base.js';
import { USAGE_EXIT } from '../src/cli/errors.js';
import { settableFromEnv } from '../src/cli/configuration.js';
import { nextCommand } from '../src/cli/next-command.js';
import { SERVE_DEFAULTS } from '../src/cli/sessions.js';
import { DEFAULT_EDGE, DEFAULT_RATE_LIMIT } from '../src/http/deps.js';
import { DEFAULT_CONNECTION_TIMEOUTS } from '../src/http/connections.js';
import { LOG_LEVELS, readableLines } from '../src/http/request-log.js';
import { parseInterval, SHUTDOWN_TIMEOUT_SECONDS, startServer, startupHint, type MailOptions } from '../src/server.js';
import { parseTrustProxy, type TrustProxy } from '../src/http/trust-proxy.js';

const portFlag = Flags.integer({
  description: 'port to listen on (0 picks a free one); without the flag and PARTNERKIT_PORT, the PORT variable (as a PaaS sets it)',
  default: async () => portFromEnv(process.env.PORT),
  defaultHelp: SERVE_DEFAULTS.port,
  min: 0,
  max: 65535,
});

export default class Serve extends PartnerkitCommand {
  static override description =
    'Start the HTTP server on the data dir (runs until SIGINT/SIGTERM, then lets requests finish for up to --shutdown-timeout seconds and closes the database)';
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 8080 --rate-limit 500 --rate-window 1',
    '<%= config.bin %> serve --headers-timeout-ms 5000 --request-timeout-ms 20000',
    '<%= config.bin %> serve --log-level warn',
    '<%= config.bin %> serve --trust-proxy --click-rate-limit 120 --click-dedup-minutes 30',
    '<%= config.bin %> serve --trust-proxy 10.0.0.0/8,127.0.0.1',
  ];
  // Each flag also from its environment variable, PARTNERKIT_ and its name (docs/operations.md#configuration).
  static override flags = settableFromEnv({
    port: portFlag,
    host: Flags.string({ description: 'address to listen on', default: SERVE_DEFAULTS.host }),
    'rate-limit': Flags.integer({ description: 'requests per window per API key on the tracking API', default: DEFAULT_RATE_LIMIT.max, min: 1 }),
    'rate-window': Flags.integer({ description: 'rate-limit window in seconds', default: DEFAULT_RATE_LIMIT.windowSeconds, min: 1 }),
    // Connections and the request log (docs/tracking.md#the-public-edge-connections-and-logs)
    'headers-timeout-ms': Flags.integer({ description: 'close a request whose headers have not arrived after this long', default: DEFAULT_CONNECTION_TIMEOUTS.headersMs, min: 1 }),
    'request-timeout-ms': Flags.integer({ description: 'close a request that has not fully arrived after this long', default: DEFAULT_CONNECTION_TIMEOUTS.requestMs, min: 1 }),
    'keep-alive-timeout-ms': Flags.integer({ description: 'close an idle keep-alive connection after this long', default: DEFAULT_CONNECTION_TIMEOUTS.keepAliveMs, min: 1 }),
    'log-level': Flags.string({ description: 'request log level (stdout: JSON lines, or one line of text per entry on a terminal)', default: 'info', options: [...LOG_LEVELS] }),
    // The public edge (docs/tracking.md#unique-clicks, docs/api.md#rate-limits).
    'click-dedup-minutes': Flags.integer({
      description: 'a visitor following the same link again within this many minutes gets its first click id (0: every click is stored)',
      default: DEFAULT_EDGE.clicks.dedupMinutes,
      min: 0,
    }),
    'click-rate-limit': Flags.integer({ description: 'click requests per window per client address (without an API key)', default: DEFAULT_EDGE.clicks.rateLimit.max, min: 1 }),
    'click-rate-window': Flags.integer({ description: 'click rate-limit window in seconds', default: DEFAULT_EDGE.clicks.rateLimit.windowSeconds, min: 1 }),
    'trust-proxy': Flags.custom<TrustProxy>({
      description:
        'read the client address from X-Forwarded-For of requests from these proxies: comma-separated addresses and CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1); ' +
        'without a value, or true: from whatever peer connects, one hop (only behind a proxy that sets the header)',
      helpValue: '<addresses>',
      parse: async (input) => {
        try {
          return parseTrustProxy(input);
        } catch (error) {
          throw new Errors.CLIError((error as Error).message, { exit: USAGE_EXIT });
        }
      },
      default: false,
    })(),
    // Outbound webhooks (docs/outbound-webhooks.md#several-instances).
    'webhook-lease-seconds': Flags.integer({
      description: 'on PostgreSQL, how long a claimed webhook delivery stays this instance\'s; a crashed instance\'s claims are taken over after it (more than the 10 s timeout)',
      default: DEFAULT_WORKER_SETTINGS.leaseSeconds,
      min: 11,
    }),
    // Stripe reconciliation (docs/stripe-reconciliation.md#every-few-minutes).
    'stripe-reconcile-every': Flags.custom<number>({
      description: 'reconcile every program that has a Stripe API key this often: 30s, 15m, 1h, a bare number is seconds (0: never)',
      parse: async (input) => {
        try {
          return parseInterval(input);
        } catch (error) {
          throw new Errors.CLIError((error as Error).message, { exit: USAGE_EXIT });
        }
      },
      default: 0,
    })(),
    // Mail (docs/mail.md#configuration).
    'smtp-url': Flags.string({
      description: 'send mail (sign-in links, notifications) through this SMTP server: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465; without it nothing is mailed',
      helpValue: '<url>',
    }),
    'mail-from': Flags.string({ description: 'the From of every mail, e.g. "Acme Partners <partners@acme.example>" (needed with --smtp-url)', helpValue: '<address>' }),
    'public-url': Flags.string({ description: 'the address people reach this server at, for links in mails (default: the address serve listens on)', helpValue: '<url>' }),
    // Stopping (docs/exports.md#shutdown).
    'shutdown-timeout': Flags.integer({
      description: 'on SIGTERM/SIGINT, seconds requests in flight may take to finish before their connections are closed',
      default: SHUTDOWN_TIMEOUT_SECONDS,
      min: 0,
    }),
  });

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve, bareTrustProxy(this.argv));
    const dir = this.dataDir(flags);
    if (flags['headers-timeout-ms'] > flags['request-timeout-ms']) {
      this.error('--headers-timeout-ms cannot exceed --request-timeout-ms: the headers are part of the request', { exit: 2 });
    }
    const mail = mailOptions(flags['smtp-url'], flags['mail-from'], flags['public-url']);
    // Signals are caught from before the discovery file is written: a SIGTERM sent as soon as it
    // appears would otherwise end the process without a shutdown. One during start-up stops the
    // server once it is up.
    let signalled: string | undefined;
    let onSignal = (signal: string) => void (signalled = signal);
    process.once('SIGINT', (signal) => onSignal(signal));
    process.once('SIGTERM', (signal) => onSignal(signal));
    const server = await startServer({
      dir,
      clock: clockFromEnv(),
      host: flags.host,
      port: flags.port,
      rateLimit: { max: flags['rate-limit'], windowSeconds: flags['rate-window'] },
      log: { level: flags['log-level'] as LogLevel, stream: process.stdout.isTTY ? readableLines(process.stdout) : undefined },
      connections: { headersMs: flags['headers-timeout-ms'], requestMs: flags['request-timeout-ms'], keepAliveMs: flags['keep-alive-timeout-ms'] },
      edge: {
        clicks: { dedupMinutes: flags['click-dedup-minutes'], rateLimit: { max: flags['click-rate-limit'], windowSeconds: flags['click-rate-window'] } },
        authFailureLimit: DEFAULT_EDGE.authFailureLimit,
        trustProxy: flags['trust-proxy'],
      },
      shutdownTimeoutSeconds: flags['shutdown-timeout'],
      worker: { ...DEFAULT_WORKER_SETTINGS, leaseSeconds: flags['webhook-lease-seconds'] },
      stripeReconcileEveryMs: flags['stripe-reconcile-every'],
      mail,
    });
    let stopping = false;
    const stopped = new Promise<void>((resolve) => {
      onSignal = (signal: string) => {
        stopping = true;
        this.logToStderr(`${signal}: letting requests finish (at most ${flags['shutdown-timeout']} s), then closing the database…`);
        server.stop().then(resolve, (error) => {
          this.logToStderr(`shutdown failed: ${(error as Error).message}`);
          process.exitCode = 1;
          resolve();
        });
      };
      if (signalled !== undefined) onSignal(signalled);
    });
    const database = dir.databaseUrl ? `, PostgreSQL ${redactedUrl(dir.databaseUrl)}` : '';
    this.logToStderr(`partnerkit listening on ${server.url} (data dir ${dir.root}${database})`);
    if (mail) this.logToStderr(`mailing through ${redactedUrl(mail.smtpUrl)} from ${mail.from}`);
    // Other commands find this server through the data dir, so the hint names the dir, not the URL.
    // A stop during the hint's query closes the database under it: then there is no hint to give.
    const hint = await startupHint(server, (args) => nextCommand(this.config.root, args, { 'data-dir': flags['data-dir'] })).catch((error: unknown) => {
      if (stopping) return undefined;
      throw error;
    });
    if (hint !== undefined) this.logToStderr(hint);
    await stopped;
    this.logToStderr('stopped');
  }
}

/** A URL's scheme with its colon, or '' when it is no URL. */
function protocolOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

/** The mail options, checked: an SMTP URL needs a From, and the URLs must be of their kind (docs/mail.md#configuration). */
function mailOptions(smtpUrl: string | undefined, from: string | undefined, publicUrl: string | undefined): MailOptions | undefined {
  const usage = (message: string) => new Errors.CLIError(message, { exit: USAGE_EXIT });
  if (publicUrl !== undefined && !/^https?:$/.test(protocolOf(publicUrl))) throw usage(`--public-url ${publicUrl} is not an http or https URL`);
  if (smtpUrl === undefined) {
    if (from !== undefined) throw usage('--mail-from needs --smtp-url (or PARTNERKIT_SMTP_URL): without an SMTP server nothing is mailed');
    return undefined;
  }
  if (!/^smtps?:$/.test(protocolOf(smtpUrl))) throw usage('--smtp-url must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example:587');
  if (from === undefined) throw usage('--smtp-url needs --mail-from (or PARTNERKIT_MAIL_FROM), the From of every mail, e.g. "Acme Partners <partners@acme.example>"');
  return { smtpUrl, from, publicUrl };
}

/**
 * `--trust-proxy` given without a value, as before it took one (last, or before another flag), is
 * `--trust-proxy=true`: oclif's option flags always want a value.
 */
function bareTrustProxy(argv: string[]): string[] {
  return argv.map((arg, i) => (arg === '--trust-proxy' && (i === argv.length - 1 || argv[i + 1].startsWith('-')) ? '--trust-proxy=true' : arg));
}

/** The port a platform assigns through PORT; serve's default without it. */
function portFromEnv(port: string | undefined): number {
  if (port === undefined || port === '') return SERVE_DEFAULTS.port;
  const parsed = Number(port);
  if (!/^\d+$/.test(port) || parsed > 65535) throw new Errors.CLIError(`PORT=${port} is not a port number (0 to 65535)`, { exit: 2 });
  return parsed;
}
