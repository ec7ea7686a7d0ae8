import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const oclif = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).oclif as {
  plugins: string[];
  topics: Record<string, { description: string }>;
};

/** Every topic (a folder of commands/) with the commands and subtopics it holds, by oclif id (`program:rule`). */
function topics(dir = join(ROOT, 'commands'), prefix = ''): Array<[string, string[]]> {
  const found: Array<[string, string[]]> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (!statSync(path).isDirectory()) continue;
    const id = prefix + name;
    found.push([id, readdirSync(path).map((entry) => entry.replace(/\.ts$/, ''))], ...topics(path, `${id}:`));
  }
  return found;
}

test.each(topics())('the description of topic %s names each of its commands (docs/cli.md#command-names-help-and-shell-completion)', (topic, commands) => {
  const description = oclif.topics[topic]?.description;
  expect(description, `oclif.topics["${topic}"] in package.json`).toBeDefined();
  for (const command of commands) expect(description).toContain(command);
});

test('typo suggestions and shell completion are registered plugins', () => {
  expect(oclif.plugins).toEqual(['@oclif/plugin-not-found', '@oclif/plugin-autocomplete']);
});
