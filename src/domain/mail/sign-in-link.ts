import { utc } from '@date-fns/utc';
import { addHours } from 'date-fns/addHours';
import { SESSION_HOURS, SIGN_IN_CODE_MINUTES, signInUrl, type SignInAudience } from '../../api/constants.js';
import type { Sql } from '../../store/db.js';
import * as members from '../../store/members.js';
import * as partners from '../../store/partners.js';
import type { Deps } from '../deps.js';
import { issueSignInCode, type Holder } from '../sessions.js';
import { escapeHtml, htmlMail, queueMail } from './compose.js';

/** The one answer, whoever asked: it never tells whether the address may sign in. */
export const EMAIL_LINK_MESSAGE = `If this address may sign in, a sign-in link is on its way to it. It works once, within ${SIGN_IN_CODE_MINUTES} minutes.`;

/** Who the address is on that page: an active member of some program, or an active partner enrolled in some program; else nobody. */
async function holderOf(sql: Sql, email: string, audience: SignInAudience): Promise<{ holder: Holder; name: string | null } | undefined> {
  if (audience === 'member') {
    const user = await members.findUserByEmail(sql, email);
    if (!user || (await members.memberPrograms(sql, user.id)).length === 0) return undefined;
    return { holder: { userId: user.id }, name: null };
  }
  const partner = await partners.findPartnerByEmail(sql, email);
  if (partner?.status !== 'active') return undefined;
  if (!(await partners.partnerEnrollments(sql, partner.id)).some((e) => e.status === 'active')) return undefined;
  return { holder: { partnerId: partner.id }, name: partner.name };
}

/**
 * POST /api/sessions/email-link (docs/mail.md#sign-in-by-e-mail): when mail is set up and the
 * address belongs to someone who may sign in on that page, mails them a link whose one-time code
 * opens a session of the default lifetime; the code and its mail are written in one transaction.
 * Anyone else gets nothing, and the caller the same answer either way.
 */
export async function mailSignInLink(deps: Deps, email: string, audience: SignInAudience): Promise<void> {
  const { mail } = deps;
  if (!mail) return;
  const address = email.toLowerCase();
  await deps.store.transaction(async (sql) => {
    const found = await holderOf(sql, address, audience);
    if (!found) return;
    const now = deps.clock.now();
    const { code } = await issueSignInCode(sql, found.holder, now, addHours(now, SESSION_HOURS.default, { in: utc }));
    const page = audience === 'member' ? 'dashboard' : 'portal';
    const url = signInUrl(mail.publicUrl, page, code);
    const what = audience === 'member' ? 'the partnerkit dashboard' : 'your partner portal';
    const greeting = found.name === null ? 'Hello,' : `Hello ${found.name},`;
    const note = `The link works once, within ${SIGN_IN_CODE_MINUTES} minutes. If you did not ask for it, ignore this mail: nobody can sign in without it.`;
    await queueMail(deps, sql, [{
      kind: 'sign_in',
      programId: 0,
      to: { name: found.name, address },
      subject: `Your sign-in link to ${what}`,
      text: `${greeting}\n\nOpen this link to sign in to ${what}:\n\n${url}\n\n${note}\n`,
      html: htmlMail('Sign in', [
        escapeHtml(greeting),
        `<a href="${escapeHtml(url)}">Sign in to ${escapeHtml(what)}</a>`,
        escapeHtml(note),
      ]),
    }]);
  });
}
