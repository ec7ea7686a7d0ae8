import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { escapeHtml } from '../../domain/mail/compose.js';
import { setSubscribed, verifiedUnsubscribe } from '../../domain/mail/notifications.js';
import type { AppDeps } from '../deps.js';
import { CONTENT_SECURITY_POLICY } from './pages.js';

const unsubscribeQuery = z.object({ email: z.string().optional(), kind: z.string().optional(), sig: z.string().optional() });

const page = (title: string, body: string) =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>\n<body><main><h1>${title}</h1>${body}</main></body></html>\n`;

/**
 * One-click unsubscribe (docs/mail.md#notifications-and-unsubscribing, RFC 8058): GET shows a page
 * with one button, so a link scanner that opens the link changes nothing; POST (the button, or a
 * mail client's `List-Unsubscribe=One-Click`) switches the kind of mail off for the address, and
 * POST /mail/subscribe with the same query switches it on again.
 */
export function mailRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    // The one-click POST is a form body whose content does not matter.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    const headers = { 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
    const invalid = page('Link not valid', '<p>This unsubscribe link is not valid. Use the link of a recent mail.</p>');

    // GET /mail/unsubscribe
    app.get('/mail/unsubscribe', { schema: { hide: true, querystring: unsubscribeQuery } }, async (request, reply) => {
      const wanted = deps.mail && verifiedUnsubscribe(deps.mail.unsubscribeKey, request.query);
      if (!wanted) return reply.code(400).headers(headers).type('text/html; charset=utf-8').send(invalid);
      const action = escapeHtml(request.url);
      return reply
        .headers(headers)
        .type('text/html; charset=utf-8')
        .send(page('Unsubscribe', `<p>Stop these mails (${escapeHtml(wanted.kind.replace('_', ' '))}) to ${escapeHtml(wanted.email)}?</p><form method="post" action="${action}"><button type="submit">Unsubscribe</button></form>`));
    });

    // POST /mail/unsubscribe, POST /mail/subscribe: the same signed link switches the kind off, or on again.
    for (const on of [false, true]) {
      app.post(on ? '/mail/subscribe' : '/mail/unsubscribe', { schema: { hide: true, querystring: unsubscribeQuery } }, async (request, reply) => {
        const wanted = deps.mail && verifiedUnsubscribe(deps.mail.unsubscribeKey, request.query);
        if (!wanted) return reply.code(400).headers(headers).type('text/html; charset=utf-8').send(invalid);
        await setSubscribed(deps, wanted.email, wanted.kind, on);
        const other = escapeHtml(request.url.replace(on ? '/mail/subscribe' : '/mail/unsubscribe', on ? '/mail/unsubscribe' : '/mail/subscribe'));
        const body = on
          ? `<p>${escapeHtml(wanted.email)} gets these mails again.</p><form method="post" action="${other}"><button type="submit">Unsubscribe</button></form>`
          : `<p>${escapeHtml(wanted.email)} gets no more of these mails.</p><form method="post" action="${other}"><button type="submit">Subscribe again</button></form>`;
        return reply.headers(headers).type('text/html; charset=utf-8').send(page(on ? 'Subscribed' : 'Unsubscribed', body));
      });
    }
  };
}
