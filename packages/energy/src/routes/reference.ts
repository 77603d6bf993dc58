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
import { errorResponses, FormatQuery, IdParams, listContent, READ_ERRORS, recordContent } from './docs.ts';
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
  app.get(
    `/api/v1/${resource.path}`,
    {
      schema: {
        tags,
        summary: `All ${resource.title}, by sort_order`,
        querystring: FormatQuery,
        response: {
          200: { description: 'The list', content: listContent(resource.representation, resource.example) },
          ...errorResponses(READ_ERRORS),
        },
      },
    },
    async (request, reply) => sendList(request, reply, resource.representation, await resource.list()),
  );
  app.get(
    `/api/v1/${resource.path}/:id`,
    {
      schema: {
        tags,
        summary: `One of the ${resource.title}`,
        params: IdParams,
        querystring: FormatQuery,
        response: {
          200: {
            description: 'The record',
            content: recordContent(resource.representation, resource.example),
          },
          ...errorResponses(READ_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const record = found(await resource.find(pathId(request, 'id')));
      return sendRecord(request, reply, resource.representation, record);
    },
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
