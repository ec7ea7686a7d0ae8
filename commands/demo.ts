import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../src/cli/base.js';
import { renderObject } from '../src/cli/output.js';
import { clockFromEnv } from '../src/clock.js';
import { runningServer, type DataDir } from '../src/config.js';
import { DEMO_DEFAULTS, DEMO_LIMITS } from '../src/api/constants.js';
import type { DemoOptions, DemoResult } from '../src/api/index.js';

export default class Demo extends PartnerkitCommand {
  static override description =
    'Create a demo program with partners, a workspace member and session, and a generated history (clicks, leads, conversions, sales with renewals, commissions); the same seed gives the same history';
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --days 90 --clicks 10000000 --seed 7'];
  static override flags = {
    days: Flags.integer({ description: 'days of history, ending now', default: DEMO_DEFAULTS.days, ...DEMO_LIMITS.days }),
    clicks: Flags.integer({ description: 'clicks in the whole history', default: DEMO_DEFAULTS.clicks, ...DEMO_LIMITS.clicks }),
    seed: Flags.integer({ description: 'seed of the generator', default: DEMO_DEFAULTS.seed, ...DEMO_LIMITS.seed }),
  };

  async run() {
    const { flags } = await this.parse(Demo);
    const options: DemoOptions = { days: flags.days, clicks: flags.clicks, seed: flags.seed };
    const dir = this.dataDir(flags);
    const started = performance.now();
    // A server holding the data dir runs the same loader (POST /api/admin/demo); otherwise load here.
    const result =
      flags.url ?? runningServer(dir)?.url
        ? await this.withClient(flags, {}, (client) => client.demo.load(options))
        : await this.loadLocally(dir, options);
    const seconds = (performance.now() - started) / 1000;

    const c = result.counts;
    this.log(`Loaded ${result.name} in ${seconds.toFixed(1)} s: ${c.clicks.toLocaleString('en-US')} clicks, ${c.leads.toLocaleString('en-US')} leads, ` +
      `${c.conversions.toLocaleString('en-US')} conversions, ${c.sales.toLocaleString('en-US')} sales (${c.renewals.toLocaleString('en-US')} renewals), ` +
      `${c.partners} partners, ${result.from.slice(0, 10)} – ${result.to.slice(0, 10)}.\n`);
    this.log(renderObject({
      'program id': result.programId,
      'live API key': result.apiKey,
      'test API key': result.testApiKey,
      member: result.memberEmail,
      'session token': `${result.sessionToken} (expires ${result.sessionExpiresAt})`,
    }));
    this.log(`\nTry:\n  npx partnerkit report performance ${result.programId}\n  npx partnerkit report performance ${result.programId} --period 90d\n` +
      `  PARTNERKIT_SESSION_TOKEN=${result.sessionToken} npx partnerkit report performance ${result.programId} --period 30d --csv`);
    return result;
  }

  private async loadLocally(dir: DataDir, options: DemoOptions): Promise<DemoResult> {
    // Only this path needs the store, the loader and the progress bar (docs/architecture.md §13).
    const [{ DataDirLockedError, openLocalApp }, { loadDemo }, { default: cliProgress }] = await Promise.all([
      import('../src/local.js'),
      import('../src/domain/demo.js'),
      import('cli-progress'),
    ]);
    let local;
    try {
      local = await openLocalApp(dir, clockFromEnv(), { openApi: false });
    } catch (error) {
      if (error instanceof DataDirLockedError) this.error(error.message, { exit: 2 });
      throw error;
    }
    const bar = process.stdout.isTTY && !this.jsonEnabled()
      ? new cliProgress.SingleBar({ format: 'clicks {bar} {percentage}% | {value}/{total} | {duration}s' }, cliProgress.Presets.shades_classic)
      : undefined;
    bar?.start(options.clicks, 0);
    try {
      return await loadDemo(local.deps, options, (done) => bar?.update(done));
    } finally {
      bar?.stop();
      await local.close();
    }
  }
}
