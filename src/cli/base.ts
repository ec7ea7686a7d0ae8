import { Command, Errors, Flags, Interfaces } from '@oclif/core';
import { clockFromEnv } from '../clock.js';
import { dataDir, ensureDataDir, readAdminToken, runningServer, type DataDir } from '../config.js';
import { PartnerkitClient } from '../sdk/client.js';
import { fetchTransport } from '../sdk/transport.js';
import { describeFailure, errorDocument, USAGE_EXIT } from './errors.js';
import { httpFetch } from './http-fetch.js';

/** Where a command finds the data: the data dir, and a PostgreSQL database when one is named. */
export type LocationFlags = { 'data-dir'?: string; 'database-url'?: string };

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof PartnerkitCommand)['baseFlags'] & T['flags']>;

/** A dashboard session token, for the commands a workspace member may run (reports, commission review, payouts). */
export const sessionTokenFlag = Flags.string({ description: 'dashboard session token (default: the instance admin token)', env: 'PARTNERKIT_SESSION_TOKEN' });

/**
 * Every partnerkit command: --json, --data-dir, --url, --database-url. Commands talk to the HTTP API through the
 * SDK client: over the network to --url / PARTNERKIT_URL or to the server that holds the data
 * dir, else in-process through inject() on an app built over the data dir. One code path either way.
 */
export abstract class PartnerkitCommand extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    'data-dir': Flags.string({ description: 'data directory (default ./.partnerkit)', env: 'PARTNERKIT_DATA_DIR', helpGroup: 'GLOBAL' }),
    url: Flags.string({ description: 'a running partnerkit server (default: the one holding the data dir, if any)', env: 'PARTNERKIT_URL', helpGroup: 'GLOBAL' }),
    'database-url': Flags.string({
      description: 'a PostgreSQL database (postgres://…) instead of the data dir\'s DuckDB file',
      env: 'PARTNERKIT_DATABASE_URL',
      helpGroup: 'GLOBAL',
    }),
  };

  protected dataDir(flags: LocationFlags): DataDir {
    return dataDir(flags['data-dir'], process.env, flags['database-url']);
  }

  /**
   * The server the command talks to over HTTP (--url, PARTNERKIT_URL, or the one running on the
   * data dir); undefined in-process. On PostgreSQL the command could open the database beside the
   * server, but going through it keeps links on its address and its caches current.
   */
  protected serverUrl(flags: LocationFlags & { url?: string }): string | undefined {
    return flags.url ?? runningServer(this.dataDir(flags))?.url;
  }

  /**
   * Runs `fn` with a client. `token` defaults to the instance admin token of the data dir
   * (or PARTNERKIT_ADMIN_TOKEN for a remote server).
   */
  protected async withClient<T>(
    flags: LocationFlags & { url?: string },
    credentials: { apiKey?: string; token?: string },
    fn: (client: PartnerkitClient) => Promise<T>,
  ): Promise<T> {
    const dir = this.dataDir(flags);
    const remoteUrl = this.serverUrl(flags);
    if (remoteUrl) {
      const token = credentials.token ?? process.env.PARTNERKIT_ADMIN_TOKEN ?? readAdminToken(dir);
      return fn(new PartnerkitClient({ transport: fetchTransport(remoteUrl, httpFetch), apiKey: credentials.apiKey, token }));
    }
    ensureDataDir(dir);
    // The store (DuckDB) and the app (Fastify, the schemas, the domain) are loaded only on this
    // path: a command that talks to a server never pays for them (docs/architecture.md#command-start-up).
    const { openInProcessApp } = await import('../local.js');
    const local = await openInProcessApp(dir, clockFromEnv());
    try {
      return await fn(new PartnerkitClient({ transport: local.transport, apiKey: credentials.apiKey, token: credentials.token ?? local.adminToken }));
    } finally {
      await local.close();
    }
  }

  /**
   * Every failure, reported once (docs/cli.md#failures-and-exit-statuses): with --json, exactly one error document on
   * stdout; without, a short message on stderr. Exit 2 when the command line cannot run as written.
   */
  protected override async catch(error: Error): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error;
    const failure = describeFailure(error);
    if (this.jsonEnabled()) {
      this.logJson(errorDocument(failure));
      this.exit(failure.exit);
    }
    if (failure.status !== null) this.error(`${failure.code}: ${failure.message}`, { exit: failure.exit, code: failure.code });
    if (failure.code === 'invalid_usage') {
      this.error(`${failure.message}\nSee more help with ${this.config.bin} ${this.id?.replaceAll(':', ' ')} --help`, { exit: USAGE_EXIT });
    }
    // The setup is wrong (the data dir, the database, the port): one line however long, so a log
    // collector keeps it whole (docs/operations.md#start-up-errors).
    if (failure.exit === USAGE_EXIT) {
      this.logToStderr(`Error: ${failure.message}`);
      this.exit(USAGE_EXIT);
    }
    this.error(failure.message, { exit: failure.exit });
  }
}
