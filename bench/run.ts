// npm run bench [-- section ...]: every figure of issue 7 beside a ceiling measured in the same run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { benchSales } from './sales.js';
import { benchWebhooks } from './webhooks.js';

const sections = process.argv.slice(2);
const wanted = (name: string) => sections.length === 0 || sections.includes(name);
const results: Record<string, unknown> = { machine: { cpus: (await import('node:os')).cpus().length, node: process.version }, startedAt: new Date().toISOString() };

if (wanted('sales')) {
  const s = await benchSales();
  results.sales = s;
  console.log(`sale throughput  ${s.sales.rps.median.toFixed(0)}/s (min ${s.sales.rps.min.toFixed(0)}, max ${s.sales.rps.max.toFixed(0)}), p50 ${s.sales.p50.median} ms, p99 ${s.sales.p99.median} ms`);
  console.log(`  bare Fastify   ${s.bareFastify.rps.median.toFixed(0)}/s  → ${((100 * s.sales.rps.median) / s.bareFastify.rps.median).toFixed(1)} % of it`);
  console.log(`  raw store loop ${s.rawStore.rps.median.toFixed(0)}/s  → ${(s.sales.rps.median / s.rawStore.rps.median).toFixed(2)}× it`);
  console.log(`  every 2xx stored exactly once: ${s.sales.recordedExactly}`);
  console.log(`duplicate storm  ${s.duplicateStorm.rounds} rounds × 50: exactly one sale per round ${s.duplicateStorm.exactlyOnePerRound}, 5xx ${s.duplicateStorm.fiveHundreds}`);
}

if (wanted('webhooks')) {
  const w = await benchWebhooks();
  results.webhooks = w;
  const sales = (results.sales as Awaited<ReturnType<typeof benchSales>> | undefined)?.sales.rps.median;
  console.log(`webhook deliveries ${w.rps.median.toFixed(0)}/s (min ${w.rps.min.toFixed(0)}, max ${w.rps.max.toFixed(0)}), p99 ${w.p99.median} ms, non-2xx ${w.non2xx}`
    + (sales ? ` → ${((100 * w.rps.median) / sales).toFixed(0)} % of the sale throughput` : ''));
}

const out = resolve(import.meta.dirname, '../../bench/results.json');
mkdirSync(resolve(out, '..'), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nfigures written to bench/results.json`);
