import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createEndpointRequestSchema, deliveriesQuerySchema, deliverySchema, endpointSchema, endpointWithSecretSchema, pathId, programParams,
  redeliverRequestSchema, responses, sentEventSchema, updateEndpointRequestSchema,
} from '../../api/index.js';
import {
  createEndpoint, listDeliveries, listEndpoints, redeliverEvent, removeEndpoint, rotateSecret, sendPing, updateEndpoint,
} from '../../domain/outbound/endpoints.js';
import type { AppDeps } from '../deps.js';
import { authenticateEvery, sessionAuth } from '../auth.js';

const endpointParams = z.object({ endpointId: pathId });
const eventParams = z.object({ eventId: redeliverRequestSchema.shape.eventId });

/** Outbound webhooks (docs/outbound-webhooks.md#the-admin-api): a member's dashboard session or the admin token. */
export function outboundWebhookRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const viewer = authenticateEvery(app, sessionAuth(deps));
    const common = { tags: ['webhook endpoints'], security: [{ sessionToken: [] as string[] }, { adminToken: [] as string[] }] as Array<Record<string, string[]>> };

    // POST /api/programs/:programId/webhook-endpoints
    app.post(
      '/api/programs/:programId/webhook-endpoints',
      {
        schema: {
          ...common, summary: 'Add an endpoint; its secret is shown only in this answer', params: programParams, body: createEndpointRequestSchema,
          response: responses(endpointWithSecretSchema),
        },
      },
      (request) => createEndpoint(deps, viewer(request), request.params.programId, request.body),
    );

    // GET /api/programs/:programId/webhook-endpoints
    app.get(
      '/api/programs/:programId/webhook-endpoints',
      { schema: { ...common, summary: "A program's endpoints, by id", params: programParams, response: responses(z.array(endpointSchema)) } },
      (request) => listEndpoints(deps, viewer(request), request.params.programId),
    );

    // PATCH /api/webhook-endpoints/:endpointId
    app.patch(
      '/api/webhook-endpoints/:endpointId',
      {
        schema: { ...common, summary: "Change an endpoint's URL, event types, description or enabled", params: endpointParams, body: updateEndpointRequestSchema, response: responses(endpointSchema) },
      },
      (request) => updateEndpoint(deps, viewer(request), request.params.endpointId, request.body),
    );

    // DELETE /api/webhook-endpoints/:endpointId
    app.delete(
      '/api/webhook-endpoints/:endpointId',
      { schema: { ...common, summary: 'Remove an endpoint; its deliveries stay in the log', params: endpointParams, response: responses(endpointSchema) } },
      (request) => removeEndpoint(deps, viewer(request), request.params.endpointId),
    );

    // POST /api/webhook-endpoints/:endpointId/rotate-secret
    app.post(
      '/api/webhook-endpoints/:endpointId/rotate-secret',
      {
        schema: { ...common, summary: 'A new secret, shown only here; the previous one also signs for 24 hours', params: endpointParams, response: responses(endpointWithSecretSchema) },
      },
      (request) => rotateSecret(deps, viewer(request), request.params.endpointId),
    );

    // POST /api/webhook-endpoints/:endpointId/test
    app.post(
      '/api/webhook-endpoints/:endpointId/test',
      { schema: { ...common, summary: 'Send one ping event to the endpoint', params: endpointParams, response: responses(sentEventSchema) } },
      (request) => sendPing(deps, viewer(request), request.params.endpointId),
    );

    // GET /api/webhook-endpoints/:endpointId/deliveries
    app.get(
      '/api/webhook-endpoints/:endpointId/deliveries',
      {
        schema: { ...common, summary: "An endpoint's deliveries, newest first, with their last attempt", params: endpointParams, querystring: deliveriesQuerySchema, response: responses(z.array(deliverySchema)) },
      },
      (request) => listDeliveries(deps, viewer(request), request.params.endpointId, request.query),
    );

    // POST /api/webhook-events/:eventId/redeliver
    app.post(
      '/api/webhook-events/:eventId/redeliver',
      {
        schema: {
          ...common, summary: 'Send an event again now, to one endpoint or to every endpoint it went to', params: eventParams,
          body: redeliverRequestSchema.pick({ endpointId: true }).default({}), response: responses(sentEventSchema),
        },
      },
      (request) => redeliverEvent(deps, viewer(request), request.params.eventId, request.body.endpointId),
    );
  };
}
