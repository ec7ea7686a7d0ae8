#!/usr/bin/env node
// npm run docs:cli: writes the CLI reference from the built commands (oclif readme over
// oclif.manifest.json): docs/cli-reference.md, the index of topics, and one page per topic under
// docs/cli-reference/, each command's usage, flags, description and examples. A test
// (test/cli/cli-reference.test.ts) fails when the checked-in pages differ. Another directory as
// argument writes there instead of docs/ (the test's copy).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(root, 'docs');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Every command's section as oclif writes it (`## \`partnerkit payout create\`` …), in its order. */
function commandSections() {
  const scratch = mkdtempSync(join(tmpdir(), 'partnerkit-docs-cli-'));
  const page = join(scratch, 'commands.md');
  writeFileSync(page, '<!-- commands -->\n<!-- commandsstop -->\n');
  try {
    // oclif wraps the help at COLUMNS (120 when unset): fixed, so a terminal's width changes nothing;
    // oclif's own check for a newer version of itself stays off (no registry call, no warning).
    execFileSync(process.execPath, [join(root, 'node_modules/oclif/bin/run.js'), 'readme', '--readme-path', page, '--no-aliases', '--no-source-links'], {
      cwd: root,
      env: { ...process.env, COLUMNS: '120', OCLIF_SKIP_NEW_VERSION_CHECK: 'true' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const text = readFileSync(page, 'utf8').replace(/\n<!-- commandsstop -->\n?$/, '');
    return text.split('\n## ').slice(1).map((s) => `## ${s.trimEnd()}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A section's topic: the first word of its command (`payout` for `partnerkit payout create`). */
const topicOf = (section) => section.match(/^## `partnerkit ([a-z-]+)/)[1];
/** A topic's one line: its description in package.json, else the first line of its one command's section. */
const describe = (topic, sections) => pkg.oclif.topics?.[topic]?.description ?? sections[0].split('\n').find((line, i) => i > 0 && line.trim() !== '');

const topics = new Map();
for (const section of commandSections()) {
  const topic = topicOf(section);
  topics.set(topic, [...(topics.get(topic) ?? []), section]);
}

const GENERATED = 'Generated from the commands by `npm run docs:cli`; a test fails when it differs, so change a command\'s\ndescription, flags or examples, never this page.';
mkdirSync(join(out, 'cli-reference'), { recursive: true });
for (const [topic, sections] of topics) {
  writeFileSync(
    join(out, 'cli-reference', `${topic}.md`),
    `# partnerkit ${topic}\n\n${describe(topic, sections)}\n\n${GENERATED} Every topic: [the CLI reference](../cli-reference.md).\n\n${sections.join('\n')}`,
  );
}
const command = (section) => section.match(/^## `([^`]+)`/)[1];
const index = [...topics].map(
  ([topic, sections]) => `- [\`partnerkit ${topic}\`](cli-reference/${topic}.md): ${describe(topic, sections)}${sections.length > 1 ? `\n${sections.map((s) => `  - \`${command(s)}\``).join('\n')}` : ''}`,
);
writeFileSync(
  join(out, 'cli-reference.md'),
  `# CLI reference

Every \`partnerkit\` command, one page per topic: its usage, flags, description and examples, as
\`partnerkit <command> --help\` prints them. How the CLI behaves (its output, errors, exit codes and
hints) is in [cli.md](cli.md).

${GENERATED}

${index.join('\n')}
`,
);
