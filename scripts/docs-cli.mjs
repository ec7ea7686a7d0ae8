#!/usr/bin/env node
// npm run docs:cli: writes docs/cli-reference.md, every command's help as markdown, from the built
// commands (oclif readme over oclif.manifest.json). test/cli/cli-reference.test.ts fails when the
// checked-in page differs. Another path as argument writes there instead (the test's copy).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const page = process.argv[2] ?? fileURLToPath(new URL('../docs/cli-reference.md', import.meta.url));

writeFileSync(
  page,
  `# CLI reference

Every \`partnerkit\` command: its usage, flags, description and examples, as \`partnerkit <command> --help\`
prints them. How the CLI behaves (its output, errors, exit codes and hints) is in [docs/cli.md](cli.md).

This page is generated from the commands by \`npm run docs:cli\`; a test fails when it differs from what
they generate, so change a command's description, flags or examples, never this page.

<!-- commands -->
<!-- commandsstop -->
`,
);
// oclif wraps the help at COLUMNS (120 when unset): fixed, so a terminal's width changes nothing;
// oclif's own check for a newer version of itself stays off (no registry call, no warning).
execFileSync(process.execPath, [fileURLToPath(new URL('../node_modules/oclif/bin/run.js', import.meta.url)), 'readme', '--readme-path', page, '--no-aliases', '--no-source-links'], {
  cwd: root,
  env: { ...process.env, COLUMNS: '120', OCLIF_SKIP_NEW_VERSION_CHECK: 'true' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
