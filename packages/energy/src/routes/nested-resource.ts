import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userIdOf } from '../auth/require-user.ts';
import type { ApiRecord, Representation, Scalar } from '../format/representation.ts';
import { sendList, sendNoContent, sendRecord } from '../format/respond.ts';
import type { FieldErrors, InputField } from '../input/fields.ts';
import type { RouteContext } from './context.ts';
import {
  BuildingParams,
  errorResponses,
  FormatQuery,
  IdParams,
  inputBody,
  listContent,
  READ_ERRORS,
  recordContent,
  WRITE_ERRORS,
} from './docs.ts';
import { found, idOf, locationOf, pathId, readInput, throwIfInvalid } from './http.ts';

type Values = Record<string, Scalar>;

/** A resource owned by a building, with Rails' shallow routes: nested index/create, flat member routes. */
export interface NestedResource {
  /** Path segment and tag, e.g. `operations`. */
  readonly plural: string;
  /** Parameter wrapper and singular name, e.g. `operation`. */
  readonly wrapper: string;
  readonly representation: Representation;
  readonly input: readonly InputField[];
  readonly example: ApiRecord;
  readonly inputExample: Record<string, unknown>;
  readonly repository: {
    list(buildingId: number): Promise<ApiRecord[]>;
    find(userId: number, id: number): Promise<ApiRecord | undefined>;
    create(buildingId: number, values: Values): Promise<ApiRecord>;
    update(id: number, values: Values): Promise<void>;
    remove(id: number): Promise<void>;
  };
  /** Checks that need the database (e.g. elevator_id names an elevator of this building). */
  readonly validate?: (buildingId: number, values: Values) => Promise<FieldErrors>;
}

export function nestedResourceRoutes(
  app: FastifyInstance,
  context: RouteContext,
  resource: NestedResource,
): void {
  const { plural, wrapper, representation, repository } = resource;
  const tags = [plural];
  const member = `/api/v1/${plural}/:id`;
  const collection = `/api/v1/buildings/:building_id/${plural}`;
  const body = inputBody(resource.input, wrapper, resource.inputExample);
  const validated = async (buildingId: number, values: Values) => {
    if (resource.validate) throwIfInvalid(await resource.validate(buildingId, values));
    return values;
  };
  const ownedBuilding = async (userId: number, buildingId: number) => {
    if (!(await context.buildings.owns(userId, buildingId))) found(undefined);
    return buildingId;
  };

  app.get(
    collection,
    {
      schema: {
        tags,
        summary: `All ${plural} of a building`,
        params: BuildingParams,
        querystring: FormatQuery,
        response: {
          200: { description: 'The list', content: listContent(representation, resource.example) },
          ...errorResponses(READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const buildingId = await ownedBuilding(userIdOf(request), pathId(request, 'building_id'));
      return sendList(request, reply, representation, await repository.list(buildingId));
    },
  );

  app.post(
    collection,
    {
      schema: {
        tags,
        summary: `Create a ${wrapper} of a building`,
        params: BuildingParams,
        querystring: FormatQuery,
        body,
        response: {
          201: {
            description: 'Created; Location names it',
            content: recordContent(representation, resource.example),
          },
          ...errorResponses(WRITE_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const buildingId = await ownedBuilding(userIdOf(request), pathId(request, 'building_id'));
      const values = await validated(buildingId, readInput(request, resource.input, wrapper, 'create'));
      const record = await repository.create(buildingId, values);
      reply
        .code(201)
        .header(
          'location',
          locationOf(request, context.config.publicUrl, `/api/v1/${plural}/${idOf(record)}`),
        );
      return sendRecord(request, reply, representation, record);
    },
  );

  app.get(
    member,
    {
      schema: {
        tags,
        summary: `One ${wrapper}`,
        params: IdParams,
        querystring: FormatQuery,
        response: {
          200: { description: `The ${wrapper}`, content: recordContent(representation, resource.example) },
          ...errorResponses(READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const record = found(await repository.find(userIdOf(request), pathId(request, 'id')));
      return sendRecord(request, reply, representation, record);
    },
  );

  const update = {
    schema: {
      tags,
      summary: `Update a ${wrapper} (only the parameters sent change)`,
      params: IdParams,
      querystring: FormatQuery,
      body,
      response: { 204: { description: 'Updated, no body', type: 'null' }, ...errorResponses(WRITE_ERRORS) },
    },
  };
  const updateHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const record = found(await repository.find(userIdOf(request), pathId(request, 'id')));
    const values = await validated(
      Number(record.building_id),
      readInput(request, resource.input, wrapper, 'update'),
    );
    await repository.update(idOf(record), values);
    return sendNoContent(reply);
  };
  app.put(member, update, updateHandler);
  app.patch(member, update, updateHandler);

  app.delete(
    member,
    {
      schema: {
        tags,
        summary: `Delete a ${wrapper}`,
        params: IdParams,
        querystring: FormatQuery,
        response: { 204: { description: 'Deleted, no body', type: 'null' }, ...errorResponses(READ_ERRORS) },
      },
    },
    async (request, reply) => {
      const record = found(await repository.find(userIdOf(request), pathId(request, 'id')));
      await repository.remove(idOf(record));
      return sendNoContent(reply);
    },
  );
}
