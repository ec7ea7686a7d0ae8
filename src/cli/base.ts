import { Command, Flags, Interfaces } from '@oclif/core';
import { clockFromEnv } from '../clock.js';
import { dataDir, ensureDataDir, readAdminToken, runningServer, type DataDir } from '../config.js';
import { injectTransport, openLocalApp } from '../local.js';
import { PartnerkitClient } from '../sdk/client.js';
import { PartnerkitError } from '../sdk/errors.js';

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof PartnerkitCommand)['baseFlags'] & T['flags']>;

/**
 * Every partnerkit command: --json, --data-dir, --url. Commands talk to the HTTP API through the
 * SDK client: over the network to --url / PARTNERKIT_URL or to the server that holds the data
 * dir, else in-process through inject() on an app built over the data dir. One code path either way.
 */
export abstract class PartnerkitCommand extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    'data-dir': Flags.string({ description: 'data directory (default ./.partnerkit)', env: 'PARTNERKIT_DATA_DIR', helpGroup: 'GLOBAL' }),
    url: Flags.string({ description: 'a running partnerkit server (default: the one holding the data dir, if any)', env: 'PARTNERKIT_URL', helpGroup: 'GLOBAL' }),
  };

  protected dataDir(flags: { 'data-dir'?: string }): DataDir {
    return dataDir(flags['data-dir']);
  }

  /** The server the command talks to over HTTP (--url, PARTNERKIT_URL, or the one holding the data dir); undefined in-process. */
  protected serverUrl(flags: { 'data-dir'?: string; url?: string }): string | undefined {
    return flags.url ?? runningServer(this.dataDir(flags))?.url;
  }

  /**
   * Runs `fn` with a client. `token` defaults to the instance admin token of the data dir
   * (or PARTNERKIT_ADMIN_TOKEN for a remote server).
   */
  protected async withClient<T>(
    flags: { 'data-dir'?: string; url?: string },
    credentials: { apiKey?: string; token?: string },
    fn: (client: PartnerkitClient) => Promise<T>,
  ): Promise<T> {
    const dir = this.dataDir(flags);
    const remoteUrl = this.serverUrl(flags);
    if (remoteUrl) {
      const token = credentials.token ?? process.env.PARTNERKIT_ADMIN_TOKEN ?? readAdminToken(dir);
      return fn(new PartnerkitClient({ baseUrl: remoteUrl, apiKey: credentials.apiKey, token }));
    }
    ensureDataDir(dir);
    const local = await openLocalApp(dir, clockFromEnv());
    try {
      const transport = injectTransport(local.app);
      return await fn(new PartnerkitClient({ transport, apiKey: credentials.apiKey, token: credentials.token ?? local.adminToken }));
    } finally {
      await local.close();
    }
  }

  /** API errors print their error.code; with --json, the error document. */
  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof PartnerkitError) {
      if (this.jsonEnabled()) {
        this.logJson({ error: { code: error.code, status: error.status, message: error.message, details: error.details } });
        this.exit(1);
      }
      this.error(`${error.code}: ${error.message}`, { exit: 1, code: error.code });
    }
    return super.catch(error);
  }
}
