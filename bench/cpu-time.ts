// Loaded with `node --import` into a timed command (bench/cli.ts): at exit, writes the process's CPU
// time, user and system of all its threads, in milliseconds, to $PARTNERKIT_BENCH_CPU.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeFileSync(process.env.PARTNERKIT_BENCH_CPU!, String((user + system) / 1000));
});
