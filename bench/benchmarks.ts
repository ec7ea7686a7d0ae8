// docs/benchmarks.md is written from bench/benchmarks-intro.md (the hand-written text of each
// section) and bench/results.json (the latest run of each section). Running one section replaces
// that section's rows and keeps the others (docs/benchmarks.md#benchmarks).

/** One figure beside its ceiling and target, as `npm run bench` prints it. */
export type BenchRow = { figure: string; value: string; ceiling: string; ratio: string; target: string; met: boolean | null };

/** The latest run of one section: when, on what, and its rows (`data`: the raw figures behind them). */
export type SectionRun = { ranAt: string; machine: string; note?: string; rows: BenchRow[]; data?: unknown };

/** bench/results.json: every section's latest run. */
export type BenchResults = { sections: Record<string, SectionRun> };

/** The sections of `run` replace those of `previous`; the others stay. */
export function mergeResults(previous: BenchResults, run: BenchResults): BenchResults {
  return { sections: { ...previous.sections, ...run.sections } };
}

const ROWS_MARKER = /^<!-- rows: ([\w-]+) -->$/;

const cell = (text: string) => text.replaceAll('|', '\\|');

function sectionTable(run: SectionRun | undefined): string[] {
  if (!run) return ['Not measured yet.'];
  const lines = [`Run of ${run.ranAt}, ${run.machine}${run.note ? `; ${run.note}` : ''}:`, '', '| figure | value | ceiling | ratio | target | met |', '|---|---|---|---|---|---|'];
  for (const r of run.rows) {
    const met = r.met === null ? '—' : r.met ? 'yes' : '**no**';
    lines.push(`| ${[r.figure, r.value, r.ceiling, r.ratio, r.target].map(cell).join(' | ')} | ${met} |`);
  }
  return lines;
}

/**
 * The page: the template with each `<!-- rows: section -->` line replaced by that section's latest
 * rows, and the sections the template does not name appended under "Other sections".
 */
export function renderBenchmarks(template: string, results: BenchResults): string {
  const named = new Set<string>();
  const out: string[] = [];
  for (const line of template.split('\n')) {
    const marker = ROWS_MARKER.exec(line);
    if (!marker) {
      out.push(line);
      continue;
    }
    named.add(marker[1]);
    out.push(...sectionTable(results.sections[marker[1]]));
  }
  const others = Object.keys(results.sections).filter((name) => !named.has(name)).sort();
  if (others.length > 0) {
    out.push('## Other sections', '');
    for (const name of others) out.push(`### ${name}`, '', ...sectionTable(results.sections[name]), '');
  }
  while (out.at(-1) === '') out.pop();
  return `${out.join('\n')}\n`;
}
