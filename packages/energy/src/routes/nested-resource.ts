import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userIdOf } from '../auth/require-user.ts';
import type { ApiRecord, Representation, Scalar } from '../format/representation.ts';
import { sendList, sendNoContent, sendRecord } from '../format/respond.ts';
import type { FieldErrors, InputField } from '../input/fields.ts';
import type { RouteContext } from './context.ts';
import { BuildingParams, routeSchemas } from './docs.ts';
import { inputBody } from './request-docs.ts';
import { found, idOf, locationOf, pathId, readInput, throwIfInvalid } from './http.ts';

type Values = Record<string, Scalar>;

/** A resource owned by a building, with Rails' shallow routes: nested index/create, flat member routes. */
export interface NestedResource {
  /** Path segment, e.g. `operations`. */
  readonly plural: string;
  /** OpenAPI tag ("operations" is the kit's tag for health endpoints). */
  readonly tag: string;
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

/** The building in the path, when the caller owns it; a 404 otherwise. */
async function ownedBuilding(context: RouteContext, request: FastifyRequest): Promise<number> {
  const buildingId = pathId(request, 'building_id');
  if (!(await context.buildings.owns(userIdOf(request), buildingId))) found(undefined);
  return buildingId;
}

async function validInput(
  resource: NestedResource,
  request: FastifyRequest,
  buildingId: number,
  mode: 'create' | 'update',
): Promise<Values> {
  const values = readInput(request, resource.input, resource.wrapper, mode);
  if (resource.validate) throwIfInvalid(await resource.validate(buildingId, values));
  return values;
}

function collectionRoutes(app: FastifyInstance, context: RouteContext, resource: NestedResource): void {
  const { plural, wrapper, representation, repository, example } = resource;
  const path = `/api/v1/buildings/:building_id/${plural}`;
  const tags = [resource.tag];
  const body = inputBody(resource.input, wrapper, resource.inputExample);
  app.get(
    path,
    {
      schema: routeSchemas.list(tags, `All ${plural} of a building`, representation, example, BuildingParams),
    },
    async (request, reply) => {
      const buildingId = await ownedBuilding(context, request);
      return sendList(request, reply, representation, await repository.list(buildingId));
    },
  );
  app.post(
    path,
    {
      schema: routeSchemas.create(
        tags,
        `Create ${article(wrapper)} ${wrapper} of a building`,
        representation,
        example,
        body,
        BuildingParams,
      ),
    },
    async (request, reply) => {
      const buildingId = await ownedBuilding(context, request);
      const record = await repository.create(
        buildingId,
        await validInput(resource, request, buildingId, 'create'),
      );
      const location = locationOf(request, context.config.publicUrl, `/api/v1/${plural}/${idOf(record)}`);
      reply.code(201).header('location', location);
      return sendRecord(request, reply, representation, record);
    },
  );
}

function memberRoutes(app: FastifyInstance, resource: NestedResource): void {
  const { plural, wrapper, representation, repository } = resource;
  const path = `/api/v1/${plural}/:id`;
  const tags = [resource.tag];
  const owned = async (request: FastifyRequest) =>
    found(await repository.find(userIdOf(request), pathId(request, 'id')));
  app.get(
    path,
    { schema: routeSchemas.show(tags, `One ${wrapper}`, representation, resource.example) },
    async (request, reply) => sendRecord(request, reply, representation, await owned(request)),
  );
  const update = async (request: FastifyRequest, reply: FastifyReply) => {
    const record = await owned(request);
    await repository.update(
      idOf(record),
      await validInput(resource, request, Number(record.building_id), 'update'),
    );
    return sendNoContent(reply);
  };
  const body = inputBody(resource.input, wrapper, resource.inputExample);
  const updateSchema = routeSchemas.update(
    tags,
    `Update ${article(wrapper)} ${wrapper} (only the parameters sent change)`,
    body,
  );
  app.put(path, { schema: updateSchema }, update);
  app.patch(path, { schema: updateSchema }, update);
  app.delete(
    path,
    { schema: routeSchemas.remove(tags, `Delete ${article(wrapper)} ${wrapper}`) },
    async (request, reply) => {
      await repository.remove(idOf(await owned(request)));
      return sendNoContent(reply);
    },
  );
}

export function nestedResourceRoutes(
  app: FastifyInstance,
  context: RouteContext,
  resource: NestedResource,
): void {
  collectionRoutes(app, context, resource);
  memberRoutes(app, resource);
}

/** English indefinite article for a resource name in the docs ("an elevator", "a building"). */
function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'an' : 'a';
}
