import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';

/** The pages `serve` delivers (docs/pages.md#serving-caching-and-the-session), built by `npm run build` into dist/web, and their paths. */
export const PAGES = ['dashboard', 'portal', 'apply'] as const;
/** The dashboard's sections have URLs of their own under /dashboard/ (docs/pages.md#sections-and-their-urls): one page answers them all. */
const PAGE_PATHS: Record<(typeof PAGES)[number], string[]> = { dashboard: ['/dashboard', '/dashboard/*'], portal: ['/portal'], apply: ['/apply/:programId'] };

/**
 * The pages run only the bundle they were built with: scripts and styles from this server's files,
 * API calls to this server, no inline script or style, no framing, no form posting elsewhere.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * / (a redirect to /dashboard), /favicon.ico, /dashboard (and its sections' URLs), /portal and /apply/:programId (HTML, never cached: it names the assets of the current build) and
 * /assets/* (content-hashed names, so cached for a year as immutable). @fastify/static is loaded
 * here, when `serve` asks for the pages, not by every CLI command (docs/architecture.md#command-start-up).
 */
export function pageRoutes(dir: string): FastifyPluginAsync {
  return async (app) => {
    const built = PAGES.every((page) => existsSync(join(dir, `${page}.html`)));
    const security = { 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
    for (const page of PAGES) {
      const html = built ? readFileSync(join(dir, `${page}.html`)) : `The pages are not built: run npm run build (no ${join(dir, `${page}.html`)}).\n`;
      for (const path of PAGE_PATHS[page]) {
        // GET /dashboard, GET /dashboard/<section>…, GET /portal: the page; its session comes in the URL's fragment, never sent here.
        // GET /apply/:programId: the public application page (docs/applications.md#the-application-page).
        app.get(path, { schema: { hide: true } }, async (_request, reply) =>
          reply
            .code(built ? 200 : 503)
            .headers({ ...security, 'cache-control': 'no-store' })
            .type(built ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8')
            .send(html),
        );
      }
    }
    // GET /: the dashboard, the page an operator opening the server's address is after.
    app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/dashboard', 302));
    if (!built) return;
    const favicon = readFileSync(join(dir, 'favicon.ico'));
    // GET /favicon.ico: what browsers ask every site for.
    app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
      reply.headers({ 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' }).type('image/x-icon').send(favicon),
    );
    const fastifyStatic = createRequire(import.meta.url)('@fastify/static') as typeof import('@fastify/static').default;
    await app.register(fastifyStatic, {
      root: join(dir, 'assets'),
      prefix: '/assets/',
      index: false,
      list: false,
      // A dotfile is a file like any other that is not there: 404, where 'deny' answers with an error (500).
      dotfiles: 'ignore',
      cacheControl: true,
      immutable: true,
      maxAge: '365d',
      setHeaders: (response) => response.setHeader('x-content-type-options', 'nosniff'),
      schemaHide: true,
    });
  };
}
