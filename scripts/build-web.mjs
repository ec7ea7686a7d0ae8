// Builds the pages (docs/architecture.md#the-pages): src/web/pages/<page>.ts bundled by esbuild into
// <out>/assets/<page>-<hash>.js and .css (content-hashed, so they are cached as immutable), and
// <out>/<page>.html naming them (served with no-store). Run by `npm run build`; out defaults to dist/web.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const PAGES = ['dashboard', 'portal', 'apply'];
const TITLES = { dashboard: 'partnerkit dashboard', portal: 'partnerkit partner portal', apply: 'Apply to become a partner' };
const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(root, 'dist/web');

rmSync(out, { recursive: true, force: true });
const result = await build({
  entryPoints: PAGES.map((page) => join(root, `src/web/pages/${page}.ts`)),
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  platform: 'browser',
  minify: true,
  format: 'esm',
  target: ['es2022'],
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

for (const page of PAGES) {
  const entry = relative(root, join(root, `src/web/pages/${page}.ts`));
  const [js, output] = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === entry);
  const asset = (file) => `/assets/${basename(file)}`;
  const html = readFileSync(join(root, 'src/web/pages/page.html'), 'utf8')
    .replaceAll('{{title}}', TITLES[page])
    .replace('{{css}}', asset(output.cssBundle))
    .replace('{{js}}', asset(js));
  writeFileSync(join(out, `${page}.html`), html);
}
// What browsers ask for at /favicon.ico (docs/operations.md#the-pages-root).
copyFileSync(join(root, 'src/web/pages/favicon.ico'), join(out, 'favicon.ico'));
