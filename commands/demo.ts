import { Flags } from '@oclif/core';
import { DEMO_DEFAULTS, DEMO_LIMITS } from '../src/api/constants.js';
import type { DemoOptions, DemoPhase, DemoProgress, DemoResult } from '../src/api/index.js';
import { PartnerkitCommand } from '../src/cli/base.js';
import { nextCommand } from '../src/cli/next-command.js';
import { formatCount, formatWhen, renderObject } from '../src/cli/output.js';
import { baseUrlFlag, signInLink } from '../src/cli/sessions.js';
import { clockFromEnv } from '../src/clock.js';
import { runningServer, type DataDir } from '../src/config.js';

/** What the bar says in each phase of a load (docs/cli.md#demo-progress), padded to one width so the bar stays put. */
const PHASE_LABELS: Record<DemoPhase, string> = { clicks: 'writing clicks', sales: 'writing leads, sales and commissions', commit: 'committing' };
const LABEL_WIDTH = Math.max(...Object.values(PHASE_LABELS).map((label) => label.length));
const label = (phase: DemoPhase) => PHASE_LABELS[phase].padEnd(LABEL_WIDTH);

export default class Demo extends PartnerkitCommand {
  static override description =
    "Create a demo program with partners, a workspace member and session, and a generated history (clicks, leads, conversions, sales with renewals, commissions); prints the dashboard's and a partner portal's sign-in links; the same seed gives the same history";
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --days 90 --clicks 10000000 --seed 7'];
  static override flags = {
    days: Flags.integer({ description: 'days of history, ending now', default: DEMO_DEFAULTS.days, ...DEMO_LIMITS.days }),
    clicks: Flags.integer({ description: 'clicks in the whole history', default: DEMO_DEFAULTS.clicks, ...DEMO_LIMITS.clicks }),
    seed: Flags.integer({ description: 'seed of the generator', default: DEMO_DEFAULTS.seed, ...DEMO_LIMITS.seed }),
    'base-url': baseUrlFlag,
  };

  async run() {
    const { flags } = await this.parse(Demo);
    const options: DemoOptions = { days: flags.days, clicks: flags.clicks, seed: flags.seed };
    const dir = this.dataDir(flags);
    const started = performance.now();
    // On a terminal, a bar with the load's phase, whether this process loads or a server does.
    // The bar's library is loaded only when a bar is shown (docs/architecture.md#command-start-up).
    const cliProgress = process.stderr.isTTY && !this.jsonEnabled() ? (await import('cli-progress')).default : undefined;
    const bar = cliProgress
      ? new cliProgress.SingleBar({ format: '{phase} {bar} {percentage}% | {value}/{total} clicks | {duration}s' }, cliProgress.Presets.shades_classic)
      : undefined;
    bar?.start(options.clicks, 0, { phase: label('clicks') });
    const onProgress = ({ phase, done }: DemoProgress) => bar?.update(done, { phase: label(phase) });
    let loaded: DemoResult;
    const server = flags.url ?? runningServer(dir)?.url;
    try {
      // A server holding the data dir's DuckDB file runs the same loader (POST /api/admin/demo) and
      // streams its progress; otherwise (always with PostgreSQL, which every process opens) load here.
      loaded = this.serverUrl(flags)
        ? await this.withClient(flags, {}, (client) => client.demo.load(options, { onProgress }))
        : await this.loadLocally(dir, options, onProgress);
    } finally {
      bar?.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const next = (args: string[], env?: Record<string, string>) => nextCommand(this.config.root, args, flags, env);
    const dashboard = signInLink('dashboard', loaded.signInCode, flags['base-url'], server, next(['serve']));
    const portal = signInLink('portal', loaded.partnerSignInCode, flags['base-url'], server, next(['serve']));
    const result = { ...loaded, dashboardUrl: dashboard.url, portalUrl: portal.url };

    const c = result.counts;
    this.log(`Loaded ${result.name} in ${seconds.toFixed(1)} s: ${formatCount(c.clicks)} clicks, ${formatCount(c.leads)} leads, ` +
      `${formatCount(c.conversions)} conversions, ${formatCount(c.sales)} sales (${formatCount(c.renewals)} renewals), ` +
      `${c.partners} partners, ${result.from.slice(0, 10)} – ${result.to.slice(0, 10)}.\n`);
    const now = clockFromEnv().now();
    this.log(renderObject({
      'program id': result.programId,
      'live API key': result.apiKey,
      'test API key': result.testApiKey,
      member: result.memberEmail,
      'session token': `${result.sessionToken} (expires ${formatWhen(result.sessionExpiresAt, now)})`,
      dashboard: result.dashboardUrl,
      partner: result.partnerId,
      'partner portal': result.portalUrl,
      'links work': `once, until ${formatWhen(result.signInCodesExpireAt, now)}`,
    }));
    if (dashboard.note) this.log(`\n${dashboard.note}`);
    const report = ['report', 'performance', String(result.programId)];
    this.log(['\nTry:', next(report), next([...report, '--period', '90d']),
      next([...report, '--period', '30d', '--csv'], { PARTNERKIT_SESSION_TOKEN: result.sessionToken })].join('\n  '));
    return result;
  }

  private async loadLocally(dir: DataDir, options: DemoOptions, onProgress: (progress: DemoProgress) => void): Promise<DemoResult> {
    // Only this path needs the store and the loader (docs/architecture.md#command-start-up).
    const [{ openLocalDeps }, { loadDemo }] = await Promise.all([import('../src/local.js'), import('../src/domain/demo.js')]);
    const { deps } = await openLocalDeps(dir, clockFromEnv());
    try {
      return await loadDemo(deps, options, onProgress);
    } finally {
      await deps.store.close();
    }
  }
}
