import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * The repository explains itself in docs/ (docs/architecture.md#cross-cutting-rules): README.md and
 * docs/*.md link each other's headings, and comments in code name `docs/<page>.md#<heading>`. Every
 * such link must reach an existing file and, when it names one, a heading of that file; and no
 * section sign is left from the numbered sections these pages replaced.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SECTION_SIGN = '\u00a7';
const CODE_FOLDERS = ['src', 'commands', 'bench', 'scripts', 'test'];
const CODE_FILE = /\.(ts|mts|js|mjs|cjs)$/;

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : filesUnder(path, keep);
    return keep(path) ? [path] : [];
  });
}

const markdownFiles = [join(ROOT, 'README.md'), ...filesUnder(join(ROOT, 'docs'), (path) => path.endsWith('.md'))];
const codeFiles = CODE_FOLDERS.flatMap((folder) => filesUnder(join(ROOT, folder), (path) => CODE_FILE.test(path)));

/**
 * GitHub's anchor of a heading: its rendered text (links as their text, HTML tags dropped outside
 * code spans, whose text stays as written), lower case, punctuation dropped, spaces as hyphens.
 */
function slug(heading: string): string {
  const text = heading
    .split('`')
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '').replace(/[*~]/g, '')))
    .join('');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The lines of a markdown file outside fenced code blocks, with their line numbers. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  let fenced = false;
  return markdown.split('\n').flatMap((text, index) => {
    if (/^\s*(```|~~~)/.test(text)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line: index + 1, text }];
  });
}

const anchorCache = new Map<string, Set<string>>();
/** The anchors of a markdown file's headings; a repeated heading's anchor gets -1, -2, … as on GitHub. */
function anchorsOf(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (anchors) return anchors;
  anchors = new Set();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(readFileSync(path, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(path, anchors);
  return anchors;
}

type Link = { from: string; line: number; target: string };

/** What is wrong with a link to `target` (a path relative to `baseDir`, maybe with #anchor), or undefined. */
function brokenLink(baseDir: string, fromFile: string, target: string): string | undefined {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = pathPart === '' ? fromFile : resolve(baseDir, decodeURIComponent(pathPart));
  if (!existsSync(path)) return `${pathPart} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!path.endsWith('.md')) return `#${anchor} points into ${pathPart}, which is not a markdown page`;
  if (!anchorsOf(path).has(anchor.toLowerCase())) return `${relative(ROOT, path)} has no heading #${anchor}`;
  return undefined;
}

/** Relative links of markdown files: `[text](path#anchor)` and images, outside code blocks and inline code. */
function markdownLinks(): Link[] {
  return markdownFiles.flatMap((file) =>
    proseLines(readFileSync(file, 'utf8')).flatMap(({ line, text }) =>
      [...text.replace(/`[^`]*`/g, '').matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
        .map((match) => match[1])
        .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
        .map((target) => ({ from: file, line, target })),
    ),
  );
}

/** `docs/<page>.md#<heading>` and `README.md#<heading>` named in code, relative to the repository. */
function codeMentions(): Link[] {
  return codeFiles.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((text, index) =>
        [...text.matchAll(/(?<![\w/.-])((?:docs\/[\w.-]+\.md|README\.md)(?:#[\w-]+)?)/g)].map((match) => ({ from: file, line: index + 1, target: match[1] })),
      ),
  );
}

const where = (link: Link) => `${relative(ROOT, link.from)}:${link.line}`;

describe('links between the docs, the README and the code', () => {
  const links = markdownLinks();
  const mentions = codeMentions();

  test('every relative link of README.md and docs/*.md reaches an existing file and heading', () => {
    expect(links.length).toBeGreaterThan(100);
    const failures = links.flatMap((link) => {
      const problem = brokenLink(dirname(link.from), link.from, link.target);
      return problem ? [`${where(link)}: (${link.target}) ${problem}`] : [];
    });
    expect(failures).toEqual([]);
  });

  test('every docs/<page>.md#<heading> and README.md#<heading> named in src, commands, bench, scripts and test exists', () => {
    expect(mentions.length).toBeGreaterThan(100);
    const failures = mentions.flatMap((link) => {
      const problem = brokenLink(ROOT, link.from, link.target);
      return problem ? [`${where(link)}: ${link.target}: ${problem}`] : [];
    });
    expect(failures).toEqual([]);
  });

  test('no section sign is left in README.md, docs/*.md or the code: pages are linked by heading', () => {
    const failures = [...markdownFiles, ...codeFiles].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((text, index) => (text.includes(SECTION_SIGN) ? [`${relative(ROOT, file)}:${index + 1}: ${text.trim().slice(0, 120)}`] : [])),
    );
    expect(failures).toEqual([]);
  });

  test('the README is a short tour (at most 300 lines) and every docs page is short (at most 700)', () => {
    const lines = (file: string) => readFileSync(file, 'utf8').split('\n').length;
    const tooLong = markdownFiles.flatMap((file) => {
      const limit = file === join(ROOT, 'README.md') ? 300 : 700;
      return lines(file) > limit ? [`${relative(ROOT, file)}: ${lines(file)} lines, more than ${limit}`] : [];
    });
    expect(tooLong).toEqual([]);
  });

  test("headings' anchors are GitHub's: punctuation dropped, spaces as hyphens, a repeated heading numbered", () => {
    expect(slug("Timeouts are Node's")).toBe('timeouts-are-nodes');
    expect(slug('The exception: bulk loading')).toBe('the-exception-bulk-loading');
    expect(slug('Demo data: `partnerkit demo`')).toBe('demo-data-partnerkit-demo');
    expect(slug('13.4 Balances and the payout preview')).toBe('134-balances-and-the-payout-preview');
    expect(slug('Exports (`GET /api/programs/:programId/export`)')).toBe('exports-get-apiprogramsprogramidexport');
    expect(slug('Several instances on PostgreSQL (`sales-postgres`, `clicks-postgres`)')).toBe('several-instances-on-postgresql-sales-postgres-clicks-postgres');
    expect(slug('[Sessions](sessions.md) and links')).toBe('sessions-and-links');
    expect(slug('The tracking script (`GET /pk.js?program=<programId>`)')).toBe('the-tracking-script-get-pkjsprogramprogramid');
    expect(slug('A <em>bold</em> step')).toBe('a-bold-step');
    const anchors = anchorsOf(join(ROOT, 'docs/architecture.md'));
    expect(anchors.has('the-write-path')).toBe(true);
    expect(anchors.has('layers')).toBe(true);
  });
});
