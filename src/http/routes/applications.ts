import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  acceptedResponses, APPLICATION_RATE_LIMIT, applicationListSchema, applicationParams, applicationReceivedSchema, applicationRequestSchema,
  applicationSchema, applicationsQuerySchema, programParams, publicProgramSchema, rejectApplicationRequestSchema, responses,
} from '../../api/index.js';
import { rateLimited } from '../../errors.js';
import { apply, approveApplication, listApplications, publicProgram, rejectApplication } from '../../domain/applications.js';
import type { AppDeps } from '../deps.js';
import { authenticateEvery, sessionAuth } from '../auth.js';

/** The application page's API (docs/applications.md#the-application-page): no credential, applications limited per client address. */
export function publicApplicationRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (open) => {
    const tags = ['applications'];

    // GET /api/public/programs/:programId
    open.get(
      '/api/public/programs/:programId',
      { schema: { tags, summary: 'The name of a program whose application page is open (else 404)', params: programParams, response: responses(publicProgramSchema) } },
      (request) => publicProgram(deps, request.params.programId),
    );

    // POST /api/public/programs/:programId/applications
    open.post(
      '/api/public/programs/:programId/applications',
      {
        schema: {
          tags, summary: 'Apply to a program: always the same 202; the same e-mail applying again is one application', params: programParams,
          body: applicationRequestSchema, response: acceptedResponses(applicationReceivedSchema),
        },
        config: {
          rateLimit: {
            max: APPLICATION_RATE_LIMIT.max,
            timeWindow: APPLICATION_RATE_LIMIT.windowSeconds * 1000,
            groupId: 'applications',
            errorResponseBuilder: (_request: unknown, context: { ttl: number }) => rateLimited('Too many applications from this address', context.ttl),
          },
        },
      },
      async (request, reply) => reply.code(202).send(await apply(deps, request.params.programId, request.body)),
    );
  };
}

/** Partner applications for members (docs/applications.md#deciding): a dashboard session or the admin token. */
export function applicationRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (members) => {
    const viewer = authenticateEvery(members, sessionAuth(deps));
    const common = { tags: ['applications'], security: [{ sessionToken: [] as string[] }, { adminToken: [] as string[] }] as Array<Record<string, string[]>> };

    // GET /api/programs/:programId/applications
    members.get(
      '/api/programs/:programId/applications',
      { schema: { ...common, summary: "A program's applications, newest first", params: programParams, querystring: applicationsQuerySchema, response: responses(applicationListSchema) } },
      (request) => listApplications(deps, viewer(request), request.params.programId, request.query.status),
    );

    // POST /api/applications/:applicationId/approve
    members.post(
      '/api/applications/:applicationId/approve',
      { schema: { ...common, summary: 'Approve: the partner is enrolled and mailed its link', params: applicationParams, response: responses(applicationSchema) } },
      (request) => approveApplication(deps, viewer(request), request.params.applicationId),
    );

    // POST /api/applications/:applicationId/reject
    members.post(
      '/api/applications/:applicationId/reject',
      {
        schema: { ...common, summary: 'Reject, with a reason', params: applicationParams, body: rejectApplicationRequestSchema, response: responses(applicationSchema) },
      },
      (request) => rejectApplication(deps, viewer(request), request.params.applicationId, request.body.reason),
    );
  };
}
