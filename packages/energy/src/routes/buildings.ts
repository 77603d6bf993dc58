import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userIdOf } from '../auth/require-user.ts';
import { sendList, sendNoContent, sendRecord } from '../format/respond.ts';
import { buildingExample, buildingInput, buildingRepresentation } from '../resources/building.ts';
import type { RouteContext } from './context.ts';
import {
  errorResponses,
  FormatQuery,
  IdParams,
  inputBody,
  listContent,
  READ_ERRORS,
  recordContent,
  WRITE_ERRORS,
} from './docs.ts';
import { found, idOf, locationOf, pathId, readInput } from './http.ts';

const tags = ['buildings'];
const body = inputBody(buildingInput, 'building', {
  name: 'Headquarters',
  street_address: '1 Main Street',
  city: 'Boulder',
  state: 'CO',
  postal_code: '80302',
  country: 'US',
  floor_area: 52000.5,
  year_built: 1998,
});

/** The user's own buildings; anyone else's building is a 404. Deleting one deletes its operations and elevators. */
export function buildingRoutes(app: FastifyInstance, context: RouteContext): void {
  const repository = context.buildings;
  app.get(
    '/api/v1/buildings',
    {
      schema: {
        tags,
        summary: "The caller's buildings",
        querystring: FormatQuery,
        response: {
          200: { description: 'The list', content: listContent(buildingRepresentation, buildingExample) },
          ...errorResponses(READ_ERRORS),
        },
      },
    },
    async (request, reply) =>
      sendList(request, reply, buildingRepresentation, await repository.list(userIdOf(request))),
  );
  app.post(
    '/api/v1/buildings',
    {
      schema: {
        tags,
        summary: 'Create a building owned by the caller',
        querystring: FormatQuery,
        body,
        response: {
          201: {
            description: 'Created; Location names it',
            content: recordContent(buildingRepresentation, buildingExample),
          },
          ...errorResponses(WRITE_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const record = await repository.create(
        userIdOf(request),
        readInput(request, buildingInput, 'building', 'create'),
      );
      reply
        .code(201)
        .header(
          'location',
          locationOf(request, context.config.publicUrl, `/api/v1/buildings/${idOf(record)}`),
        );
      return sendRecord(request, reply, buildingRepresentation, record);
    },
  );
  app.get(
    '/api/v1/buildings/:id',
    {
      schema: {
        tags,
        summary: 'One building',
        params: IdParams,
        querystring: FormatQuery,
        response: {
          200: {
            description: 'The building',
            content: recordContent(buildingRepresentation, buildingExample),
          },
          ...errorResponses(READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const record = found(await repository.find(userIdOf(request), pathId(request, 'id')));
      return sendRecord(request, reply, buildingRepresentation, record);
    },
  );
  const update = {
    schema: {
      tags,
      summary: 'Update a building (only the parameters sent change)',
      params: IdParams,
      querystring: FormatQuery,
      body,
      response: { 204: { description: 'Updated, no body', type: 'null' }, ...errorResponses(WRITE_ERRORS) },
    },
  };
  const updateHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const userId = userIdOf(request);
    const id = pathId(request, 'id');
    found(await repository.find(userId, id));
    await repository.update(userId, id, readInput(request, buildingInput, 'building', 'update'));
    return sendNoContent(reply);
  };
  app.put('/api/v1/buildings/:id', update, updateHandler);
  app.patch('/api/v1/buildings/:id', update, updateHandler);
  app.delete(
    '/api/v1/buildings/:id',
    {
      schema: {
        tags,
        summary: 'Delete a building with its operations and elevators',
        params: IdParams,
        querystring: FormatQuery,
        response: { 204: { description: 'Deleted, no body', type: 'null' }, ...errorResponses(READ_ERRORS) },
      },
    },
    async (request, reply) => {
      if (!(await repository.remove(userIdOf(request), pathId(request, 'id')))) found(undefined);
      return sendNoContent(reply);
    },
  );
}
