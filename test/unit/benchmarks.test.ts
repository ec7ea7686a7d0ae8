import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { mergeResults, renderBenchmarks, type BenchResults } from '../../bench/benchmarks.js';

const results: BenchResults = {
  sections: {
    cli: {
      ranAt: '2026-11-26',
      machine: '2 cores, Node v20.19.0',
      rows: [
        { figure: 'command: partnerkit --help', value: '343 (325–365) ms', ceiling: 'node -e 0: 135 ms', ratio: '2.5×', target: '≤ 500 ms', met: true },
        { figure: 'command: npx partnerkit --help', value: '946 ms', ceiling: 'node -e 0: 135 ms', ratio: '7.0×', target: '— (npm starting)', met: null },
      ],
    },
    sales: {
      ranAt: '2026-11-22',
      machine: '2 cores, Node 20',
      note: 'an earlier run',
      rows: [{ figure: 'sale throughput', value: '1,900/s', ceiling: 'raw loop 303/s', ratio: '6.3×', target: '≥ 2,000/s | ≥ 3× raw', met: false }],
    },
    flood: { ranAt: '2026-11-25', machine: '2 cores, Node 20', rows: [{ figure: 'sales p99 under a flood', value: '44 ms', ceiling: 'unloaded 17 ms', ratio: '2.59×', target: '≤ 2×', met: false }] },
  },
};

const TEMPLATE = ['# Benchmarks', '', '## Start-up', '', '<!-- rows: cli -->', '', '## Sales', '', '<!-- rows: sales -->', '', '## Refunds', '', '<!-- rows: refunds -->', ''].join('\n');

describe('docs/benchmarks.md as npm run bench writes it', () => {
  test("each section's marker becomes its latest run's rows; a section never run says so; sections the template does not name come last", () => {
    expect(renderBenchmarks(TEMPLATE, results).split('\n')).toEqual([
      '# Benchmarks',
      '',
      '## Start-up',
      '',
      'Run of 2026-11-26, 2 cores, Node v20.19.0:',
      '',
      '| figure | value | ceiling | ratio | target | met |',
      '|---|---|---|---|---|---|',
      '| command: partnerkit --help | 343 (325–365) ms | node -e 0: 135 ms | 2.5× | ≤ 500 ms | yes |',
      '| command: npx partnerkit --help | 946 ms | node -e 0: 135 ms | 7.0× | — (npm starting) | — |',
      '',
      '## Sales',
      '',
      'Run of 2026-11-22, 2 cores, Node 20; an earlier run:',
      '',
      '| figure | value | ceiling | ratio | target | met |',
      '|---|---|---|---|---|---|',
      '| sale throughput | 1,900/s | raw loop 303/s | 6.3× | ≥ 2,000/s \\| ≥ 3× raw | **no** |',
      '',
      '## Refunds',
      '',
      'Not measured yet.',
      '',
      '## Other sections',
      '',
      '### flood',
      '',
      'Run of 2026-11-25, 2 cores, Node 20:',
      '',
      '| figure | value | ceiling | ratio | target | met |',
      '|---|---|---|---|---|---|',
      '| sales p99 under a flood | 44 ms | unloaded 17 ms | 2.59× | ≤ 2× | **no** |',
      '',
    ]);
  });

  test("a run of one section replaces that section's rows and keeps every other section", () => {
    const run: BenchResults = {
      sections: { sales: { ranAt: '2026-11-26', machine: '2 cores, Node v20.19.0', rows: [{ figure: 'sale throughput', value: '2,109/s', ceiling: 'raw loop 303/s', ratio: '6.95×', target: '≥ 2,000/s', met: true }] } },
    };
    const merged = mergeResults(results, run);
    expect(Object.keys(merged.sections).sort()).toEqual(['cli', 'flood', 'sales']);
    expect(merged.sections.sales).toEqual(run.sections.sales);
    expect(merged.sections.cli).toEqual(results.sections.cli);
    expect(renderBenchmarks(TEMPLATE, merged)).toContain('| sale throughput | 2,109/s | raw loop 303/s | 6.95× | ≥ 2,000/s | yes |');
  });

  test('the checked-in docs/benchmarks.md is what bench/benchmarks-intro.md and bench/results.json render (npm run bench -- docs)', () => {
    const root = resolve(import.meta.dirname, '../..');
    const read = (path: string) => readFileSync(resolve(root, path), 'utf8');
    expect(read('docs/benchmarks.md')).toBe(renderBenchmarks(read('bench/benchmarks-intro.md'), JSON.parse(read('bench/results.json')) as BenchResults));
  });
});
