import type { FastifyInstance } from 'fastify';
import type { ApiRecord, Representation } from '../format/representation.ts';
import { sendList, sendRecord } from '../format/respond.ts';
import {
  fanControlExample,
  fanControlRepresentation,
  roofTypeExample,
  roofTypeRepresentation,
} from '../resources/reference.ts';
import type { RouteContext } from './context.ts';
import { routeSchemas } from './docs.ts';
import { found, pathId } from './http.ts';

interface ReadOnlyList {
  readonly path: string;
  readonly title: string;
  readonly representation: Representation;
  readonly example: ApiRecord;
  list(): Promise<ApiRecord[]>;
  find(id: number): Promise<ApiRecord | undefined>;
}

function readOnlyRoutes(app: FastifyInstance, resource: ReadOnlyList): void {
  const tags = [resource.path];
  const { representation, example } = resource;
  app.get(
    `/api/v1/${resource.path}`,
    { schema: routeSchemas.list(tags, `All ${resource.title}, by sort_order`, representation, example) },
    async (request, reply) => sendList(request, reply, representation, await resource.list()),
  );
  app.get(
    `/api/v1/${resource.path}/:id`,
    { schema: routeSchemas.show(tags, `One of the ${resource.title}`, representation, example) },
    async (request, reply) =>
      sendRecord(request, reply, representation, found(await resource.find(pathId(request, 'id')))),
  );
}

/** Fan controls and roof types: reference data loaded by the migrations, read-only. */
export function referenceRoutes(app: FastifyInstance, context: RouteContext): void {
  readOnlyRoutes(app, {
    path: 'fan_controls',
    title: 'fan controls',
    representation: fanControlRepresentation,
    example: fanControlExample,
    list: () => context.reference.fanControls(),
    find: (id) => context.reference.fanControl(id),
  });
  readOnlyRoutes(app, {
    path: 'roof_types',
    title: 'roof types',
    representation: roofTypeRepresentation,
    example: roofTypeExample,
    list: () => context.reference.roofTypes(),
    find: (id) => context.reference.roofType(id),
  });
}
