import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userIdOf } from '../auth/require-user.ts';
import { sendList, sendNoContent, sendRecord } from '../format/respond.ts';
import { buildingExample, buildingInput, buildingRepresentation } from '../resources/building.ts';
import type { RouteContext } from './context.ts';
import { routeSchemas } from './docs.ts';
import { inputBody } from './request-docs.ts';
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
const representation = buildingRepresentation;
const example = buildingExample;

/** The user's own buildings; anyone else's building is a 404. Deleting one deletes its operations and elevators. */
export function buildingRoutes(app: FastifyInstance, context: RouteContext): void {
  const repository = context.buildings;
  app.get(
    '/api/v1/buildings',
    { schema: routeSchemas.list(tags, "The caller's buildings", representation, example) },
    async (request, reply) =>
      sendList(request, reply, representation, await repository.list(userIdOf(request))),
  );
  app.post(
    '/api/v1/buildings',
    {
      schema: routeSchemas.create(
        tags,
        'Create a building owned by the caller',
        representation,
        example,
        body,
      ),
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
      return sendRecord(request, reply, representation, record);
    },
  );
  app.get(
    '/api/v1/buildings/:id',
    { schema: routeSchemas.show(tags, 'One building', representation, example) },
    async (request, reply) => {
      const record = found(await repository.find(userIdOf(request), pathId(request, 'id')));
      return sendRecord(request, reply, representation, record);
    },
  );
  const update = async (request: FastifyRequest, reply: FastifyReply) => {
    const userId = userIdOf(request);
    const id = pathId(request, 'id');
    found(await repository.find(userId, id));
    await repository.update(userId, id, readInput(request, buildingInput, 'building', 'update'));
    return sendNoContent(reply);
  };
  const updateSchema = routeSchemas.update(tags, 'Update a building (only the parameters sent change)', body);
  app.put('/api/v1/buildings/:id', { schema: updateSchema }, update);
  app.patch('/api/v1/buildings/:id', { schema: updateSchema }, update);
  app.delete(
    '/api/v1/buildings/:id',
    { schema: routeSchemas.remove(tags, 'Delete a building with its operations and elevators') },
    async (request, reply) => {
      if (!(await repository.remove(userIdOf(request), pathId(request, 'id')))) found(undefined);
      return sendNoContent(reply);
    },
  );
}
