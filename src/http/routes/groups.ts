import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createGroupRequestSchema, groupMoveSchema, groupParams, groupSchema, movesQuerySchema, partnerGroupParams, partnerGroupSchema, programParams,
  previewQuerySchema, previewSchema, removeGroupQuerySchema, responses, setPartnerGroupRequestSchema, updateGroupRequestSchema,
} from '../../api/index.js';
import { addGroup, listGroups, listMoves, previewRule, removeGroup, setPartnerGroup, updateGroup } from '../../domain/groups.js';
import type { AppDeps } from '../deps.js';
import { authenticateEvery, sessionAuth } from '../auth.js';

/** Partner groups, moves and the rule preview (docs/groups.md#api): a member's dashboard session or the admin token. */
export function groupRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const viewer = authenticateEvery(app, sessionAuth(deps));
    const common = { tags: ['groups'], security: [{ sessionToken: [] as string[] }, { adminToken: [] as string[] }] as Array<Record<string, string[]>> };

    // POST /api/programs/:programId/groups
    app.post(
      '/api/programs/:programId/groups',
      { schema: { ...common, summary: 'Add a partner group with its reward', params: programParams, body: createGroupRequestSchema, response: responses(groupSchema) } },
      (request) => addGroup(deps, viewer(request), request.params.programId, request.body),
    );

    // GET /api/programs/:programId/groups
    app.get(
      '/api/programs/:programId/groups',
      { schema: { ...common, summary: "A program's partner groups, by id", params: programParams, response: responses(z.array(groupSchema)) } },
      (request) => listGroups(deps, viewer(request), request.params.programId),
    );

    // PATCH /api/programs/:programId/groups/:groupId
    app.patch(
      '/api/programs/:programId/groups/:groupId',
      { schema: { ...common, summary: "Change a group's settings (from the next sale on)", params: groupParams, body: updateGroupRequestSchema, response: responses(groupSchema) } },
      (request) => updateGroup(deps, viewer(request), request.params.programId, request.params.groupId, request.body),
    );

    // DELETE /api/programs/:programId/groups/:groupId
    app.delete(
      '/api/programs/:programId/groups/:groupId',
      {
        schema: {
          ...common, summary: 'Remove a group; its partners move to ?moveTo= (409 when it has partners and none is named)', params: groupParams,
          querystring: removeGroupQuerySchema, response: responses(groupSchema),
        },
      },
      (request) => removeGroup(deps, viewer(request), request.params.programId, request.params.groupId, request.query.moveTo),
    );

    // PUT /api/programs/:programId/partners/:partnerId/group
    app.put(
      '/api/programs/:programId/partners/:partnerId/group',
      {
        schema: {
          ...common, summary: "Put a partner in a group (recorded in the partner's moves)", params: partnerGroupParams, body: setPartnerGroupRequestSchema,
          response: responses(partnerGroupSchema),
        },
      },
      (request) => setPartnerGroup(deps, viewer(request), request.params.programId, request.params.partnerId, request.body.groupId),
    );

    // GET /api/programs/:programId/group-moves
    app.get(
      '/api/programs/:programId/group-moves',
      {
        schema: {
          ...common, summary: "The program's group moves, or one partner's, newest first", params: programParams, querystring: movesQuerySchema,
          response: responses(z.array(groupMoveSchema)),
        },
      },
      (request) => listMoves(deps, viewer(request), request.params.programId, request.query.partnerId),
    );

    // GET /api/programs/:programId/preview
    app.get(
      '/api/programs/:programId/preview',
      {
        schema: {
          ...common, summary: "What the period's sales would have earned under another reward, per partner, beside what they earned; writes nothing",
          params: programParams, querystring: previewQuerySchema, response: responses(previewSchema),
        },
      },
      (request) => previewRule(deps, viewer(request), request.params.programId, request.query),
    );
  };
}
