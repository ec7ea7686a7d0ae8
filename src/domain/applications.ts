import { partnerLinkPath, type ApplicationStatus } from '../api/constants.js';
import type { Application, ApplicationRequest, ApplicationReceived, PublicProgram } from '../api/index.js';
import { AppError } from '../errors.js';
import * as applications from '../store/applications.js';
import type { ApplicationRow } from '../store/applications.js';
import type { Sql } from '../store/db.js';
import * as partners from '../store/partners.js';
import { findProgram, type ProgramRow } from '../store/programs.js';
import { viewedProgram, viewedRow, type Viewer } from './access.js';
import type { Deps } from './deps.js';
import { escapeHtml, htmlMail, queueMail } from './mail/compose.js';
import { emit } from './outbound/events.js';
import { notify } from './mail/notifications.js';
import { activeMemberEmails } from '../store/mail.js';
import { enrollIn, insertNewPartner } from './provisioning.js';

/** The one answer to an application (docs/applications.md#the-application-page). */
export const APPLICATION_RECEIVED = 'Thank you: your application was received. You will hear from us by e-mail.';

export function applicationView(a: ApplicationRow): Application {
  return {
    id: a.id, programId: a.program_id, name: a.name, email: a.email, website: a.website, message: a.message, status: a.status, reason: a.reason,
    partnerId: a.partner_id, createdAt: a.created_at.toISOString(), decidedAt: a.decided_at?.toISOString() ?? null,
  };
}

const closed = (programId: number) => new AppError('not_found', `Program ${programId} takes no applications`);
const applicationNotFound = (id: number) => () => new AppError('not_found', `Application ${id} not found`);

/** A program whose application page is open, else 404 like a program that does not exist. */
async function openProgram(sql: Sql, programId: number): Promise<ProgramRow> {
  const program = await findProgram(sql, programId);
  if (!program?.applications_open) throw closed(programId);
  return program;
}

/** GET /api/public/programs/:programId: what the application page shows. */
export async function publicProgram({ store }: Deps, programId: number): Promise<PublicProgram> {
  const program = await store.read((sql) => openProgram(sql, programId));
  return { id: program.id, name: program.name };
}

/**
 * POST /api/public/programs/:programId/applications (docs/applications.md#the-application-page): a
 * pending application, its `partner.applied` event, and with auto-approval its approval, in one
 * transaction. The same address applying again changes nothing; the answer is the same either way.
 */
export async function apply(deps: Deps, programId: number, input: ApplicationRequest): Promise<ApplicationReceived> {
  await deps.store.transaction(async (sql) => {
    const program = await openProgram(sql, programId);
    const email = input.email.toLowerCase();
    if (await applications.findApplicationByEmail(sql, programId, email)) return;
    const row: ApplicationRow = {
      id: await deps.store.nextId(sql, 'partner_applications'), program_id: programId, email, name: input.name, website: input.website ?? null,
      message: input.message ?? null, status: 'pending', reason: null, partner_id: null, created_at: deps.clock.now(), decided_at: null,
    };
    await applications.insertApplication(sql, row);
    await emit(deps, sql, [{ programId, type: 'partner.applied', livemode: true, data: applicationView(row) }]);
    await notify(deps, sql, [{
      kind: 'partner_applied', programId, to: (await activeMemberEmails(sql, programId)).map((address) => ({ name: null, address })),
      subject: `New partner application to ${program.name}`,
      lines: [
        `${row.name} applied to become a partner of ${program.name}.`,
        ...(row.website ? [`Website: ${row.website}`] : []),
        ...(row.message ? [`Message: ${row.message}`] : []),
        program.auto_approve ? 'The program approves applications at once.' : `Approve or reject it in the dashboard, or with: partnerkit partner approve --application ${row.id}`,
      ],
    }]);
    if (program.auto_approve) await approveIn(deps, sql, program, row);
  });
  return { message: APPLICATION_RECEIVED };
}

/** GET /api/programs/:programId/applications: newest first. */
export async function listApplications(deps: Deps, viewer: Viewer, programId: number, status?: ApplicationStatus) {
  return deps.store.read(async (sql) => {
    await viewedProgram(deps.store, sql, viewer, programId);
    return { data: (await applications.programApplications(sql, programId, status)).map(applicationView) };
  });
}

/** A pending application the viewer may decide on. */
async function pendingApplication(sql: Sql, viewer: Viewer, id: number): Promise<ApplicationRow> {
  const row = await viewedRow(sql, viewer, await applications.findApplication(sql, id), (a) => a.program_id, applicationNotFound(id));
  if (row.status !== 'pending') throw new AppError('conflict', `Application ${id} was already ${row.status}`);
  return row;
}

/**
 * Approves inside the caller's transaction (docs/applications.md#deciding): the partner of the
 * address (made now if there is none) is enrolled, unless it already is, and mailed its partner
 * link and where to sign in.
 */
async function approveIn(deps: Deps, sql: Sql, program: ProgramRow, row: ApplicationRow): Promise<ApplicationRow> {
  const partner = (await partners.findPartnerByEmail(sql, row.email)) ?? (await insertNewPartner(deps, sql, { name: row.name, email: row.email }));
  const enrollment = (await partners.findEnrollment(sql, program.id, partner.id)) ?? (await enrollIn(deps, sql, program.id, partner.id));
  const refCode = 'ref_code' in enrollment ? enrollment.ref_code : enrollment.refCode;
  const decided = { status: 'approved' as const, reason: null, partner_id: partner.id, decided_at: deps.clock.now() };
  await applications.decideApplication(sql, row.id, decided);
  if (deps.mail) {
    const link = `${deps.mail.publicUrl}${partnerLinkPath(refCode)}`;
    const portal = `${deps.mail.publicUrl}/portal`;
    const lines = [
      `Hello ${row.name},`,
      `your application to ${program.name} was approved. Your partner link:`,
      link,
      `Follow your clicks, sales and commissions in your partner portal: open ${portal} and ask for a sign-in link with this address.`,
    ];
    await queueMail(deps, sql, [{
      kind: 'application_approved',
      programId: program.id,
      to: { name: row.name, address: row.email },
      subject: `Welcome to ${program.name}: your partner link`,
      text: `${lines.join('\n\n')}\n`,
      html: htmlMail(`Welcome to ${program.name}`, [
        escapeHtml(lines[0]),
        escapeHtml(lines[1]),
        `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a>`,
        `Follow your clicks, sales and commissions in <a href="${escapeHtml(portal)}">your partner portal</a>: ask for a sign-in link there with this address.`,
      ]),
    }]);
  }
  return { ...row, ...decided };
}

/** POST /api/applications/:applicationId/approve. */
export async function approveApplication(deps: Deps, viewer: Viewer, id: number): Promise<Application> {
  return deps.store.transaction(async (sql) => {
    const row = await pendingApplication(sql, viewer, id);
    return applicationView(await approveIn(deps, sql, (await findProgram(sql, row.program_id))!, row));
  });
}

/** POST /api/applications/:applicationId/reject: with a reason, kept with the application. */
export async function rejectApplication(deps: Deps, viewer: Viewer, id: number, reason: string): Promise<Application> {
  return deps.store.transaction(async (sql) => {
    const row = await pendingApplication(sql, viewer, id);
    const decided = { status: 'rejected' as const, reason, partner_id: null, decided_at: deps.clock.now() };
    await applications.decideApplication(sql, id, decided);
    return applicationView({ ...row, ...decided });
  });
}
