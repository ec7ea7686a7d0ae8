import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  apiKeyParams, apiKeySchema, createApiKeyRequestSchema, createdApiKeySchema, memberRequestSchema, memberSchema, membershipSchema, programParams,
  programSettingsSchema, responses, retiredApiKeySchema, updateSettingsRequestSchema,
} from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { commissionRuleFrom } from '../../domain/provisioning.js';
import * as workspace from '../../domain/workspace.js';
import { authenticateEvery, sessionAuth } from '../auth.js';

/**
 * A program's settings, API keys and members (docs/api.md#workspace-settings): a member's dashboard
 * session or the admin token, for the dashboard's Settings.
 */
export function workspaceRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const viewer = authenticateEvery(app, sessionAuth(deps));
    const common = { tags: ['workspace'], security: [{ sessionToken: [] as string[] }, { adminToken: [] as string[] }] as Array<Record<string, string[]>> };

    // GET /api/programs/:programId/settings
    app.get(
      '/api/programs/:programId/settings',
      { schema: { ...common, summary: "The program's settings (no secret)", params: programParams, response: responses(programSettingsSchema) } },
      (request) => workspace.programSettings(deps, viewer(request), request.params.programId),
    );

    // PATCH /api/programs/:programId/settings
    app.patch(
      '/api/programs/:programId/settings',
      {
        schema: {
          ...common,
          summary: "Change the program's settings named (every setting of program update but the Stripe API key)",
          params: programParams,
          body: updateSettingsRequestSchema,
          response: responses(programSettingsSchema),
        },
      },
      (request) => workspace.changeProgramSettings(deps, viewer(request), request.params.programId, { ...request.body, commission: commissionRuleFrom(request.body) }),
    );

    // GET /api/programs/:programId/keys
    app.get(
      '/api/programs/:programId/keys',
      { schema: { ...common, summary: "The program's API keys (never the secrets)", params: programParams, response: responses(z.array(apiKeySchema)) } },
      (request) => workspace.listKeys(deps, viewer(request), request.params.programId),
    );

    // POST /api/programs/:programId/keys
    app.post(
      '/api/programs/:programId/keys',
      { schema: { ...common, summary: 'Create an API key, shown only in this answer', params: programParams, body: createApiKeyRequestSchema, response: responses(createdApiKeySchema) } },
      (request) => workspace.createKey(deps, viewer(request), request.params.programId, request.body.test ? 'test' : 'live'),
    );

    // POST /api/programs/:programId/keys/:keyId/retire
    app.post(
      '/api/programs/:programId/keys/:keyId/retire',
      { schema: { ...common, summary: 'Retire an API key: it is refused from now on', params: apiKeyParams, response: responses(retiredApiKeySchema) } },
      (request) => workspace.retireKey(deps, viewer(request), request.params.programId, request.params.keyId),
    );

    // GET /api/programs/:programId/members
    app.get(
      '/api/programs/:programId/members',
      { schema: { ...common, summary: "The program's workspace members, active or not, by e-mail", params: programParams, response: responses(z.array(memberSchema)) } },
      (request) => workspace.listMembers(deps, viewer(request), request.params.programId),
    );

    // POST /api/programs/:programId/members
    app.post(
      '/api/programs/:programId/members',
      { schema: { ...common, summary: 'Add (or reactivate) a workspace member', params: programParams, body: memberRequestSchema, response: responses(membershipSchema) } },
      (request) => workspace.setMember(deps, viewer(request), request.params.programId, request.body.email, 'active'),
    );

    // POST /api/programs/:programId/members/remove
    app.post(
      '/api/programs/:programId/members/remove',
      {
        schema: {
          ...common, summary: 'Deactivate a workspace member; every session of the user ends', params: programParams, body: memberRequestSchema, response: responses(membershipSchema),
        },
      },
      (request) => workspace.setMember(deps, viewer(request), request.params.programId, request.body.email, 'inactive'),
    );
  };
}
