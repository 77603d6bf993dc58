import { type TSchema, Type } from 'typebox';
import {
  type ApiRecord,
  type FieldType,
  type Representation,
  toJson,
  toJsonList,
  toXml,
  toXmlList,
  xmlError,
  xmlErrorList,
  xmlName,
} from '../format/representation.ts';

/**
 * OpenAPI pieces generated from the same representations and input definitions the routes
 * use, so the document cannot drift from the wire format. Examples are produced by the real
 * JSON and XML writers.
 */
const JSON_TYPE = 'application/json';
const XML_TYPE = 'application/xml';

function scalar(type: FieldType): TSchema {
  switch (type) {
    case 'integer':
      return Type.Integer();
    case 'float':
      return Type.Number();
    case 'boolean':
      return Type.Boolean();
    case 'datetime':
      return Type.String({ format: 'date-time' });
    case 'string':
      return Type.String();
  }
}

const ALWAYS_SET = new Set(['id', 'created_at', 'updated_at', 'building_id']);

function recordSchema(representation: Representation, xml: boolean): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const field of representation.fields) {
    const base = scalar(field.type);
    const schema = ALWAYS_SET.has(field.name) ? base : Type.Union([base, Type.Null()]);
    properties[field.name] = xml ? { ...schema, xml: { name: xmlName(field.name) } } : schema;
  }
  return Type.Object(properties, xml ? { xml: { name: representation.element } } : {});
}

function media(schema: TSchema, example: unknown) {
  return { schema, example };
}

export function recordContent(representation: Representation, example: ApiRecord) {
  return {
    [JSON_TYPE]: media(recordSchema(representation, false), JSON.parse(toJson(representation, example))),
    [XML_TYPE]: media(recordSchema(representation, true), toXml(representation, example)),
  };
}

export function listContent(representation: Representation, example: ApiRecord) {
  return {
    [JSON_TYPE]: media(
      Type.Array(recordSchema(representation, false)),
      JSON.parse(toJsonList(representation, [example])),
    ),
    [XML_TYPE]: media(
      Type.Array(recordSchema(representation, true), {
        xml: { name: representation.listElement, wrapped: true },
      }),
      toXmlList(representation, [example]),
    ),
  };
}

const ErrorBody = Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String() }) });
const ValidationBody = Type.Object({ errors: Type.Record(Type.String(), Type.Array(Type.String())) });

const ERROR_EXAMPLES: Record<number, { code: string; description: string; message: string }> = {
  400: {
    code: 'bad_request',
    description: 'Malformed body, or XML with a DOCTYPE/entity',
    message: 'Malformed XML',
  },
  401: {
    code: 'unauthorized',
    description: 'Token missing or invalid',
    message: 'Unauthorized - ensure token is being passed with each service call.',
  },
  404: {
    code: 'not_found',
    description: "Missing, or another user's record",
    message: 'Unsupported operation',
  },
  406: {
    code: 'not_acceptable',
    description: 'Format other than json or xml',
    message: "Format 'html' is not supported; use json or xml.",
  },
  413: {
    code: 'body_too_large',
    description: 'Body over the size limit',
    message: 'Request body is larger than the limit.',
  },
  415: {
    code: 'unsupported_media_type',
    description: 'Body not JSON, XML or form-encoded',
    message: "Content type 'text/plain' is not supported; send JSON, XML or form-encoded parameters.",
  },
  500: {
    code: 'internal',
    description: 'Server fault (no internals in the body)',
    message: 'Internal server error.',
  },
};

function errorResponse(status: number) {
  if (status === 422) {
    const errors = { weekday_open_time: ['is not a valid time (use HHMM such as 0800, 20:00 or 8:00 am)'] };
    return {
      description: 'Validation failed: messages per field',
      content: {
        [JSON_TYPE]: media(ValidationBody, { errors }),
        [XML_TYPE]: media(
          Type.Object({}, { xml: { name: 'errors' } }),
          xmlErrorList(['Weekday open time is not a valid time (use HHMM such as 0800, 20:00 or 8:00 am)']),
        ),
      },
    };
  }
  const known = ERROR_EXAMPLES[status] ?? {
    code: 'internal',
    description: 'Error',
    message: 'Internal server error.',
  };
  return {
    description: known.description,
    content: {
      [JSON_TYPE]: media(ErrorBody, { error: { code: known.code, message: known.message } }),
      [XML_TYPE]: media(Type.Object({}, { xml: { name: 'error' } }), xmlError(known.code, known.message)),
    },
  };
}

/** The error responses of a route, by status. */
export function errorResponses(statuses: readonly number[]): Record<number, unknown> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(status)]));
}

export const READ_ERRORS = [401, 404, 406, 500] as const;
export const WRITE_ERRORS = [400, 401, 404, 406, 413, 415, 422, 500] as const;

export const FormatQuery = Type.Object({
  // One string enum: a union of literals reads `string | (string | string)` in Swagger UI.
  format: Type.Optional(
    Type.Unsafe<'json' | 'xml'>({
      type: 'string',
      enum: ['json', 'xml'],
      description: 'Response format (or use a .json/.xml extension or Accept)',
    }),
  ),
  token: Type.Optional(Type.String({ description: 'API token' })),
});

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
export const BuildingParams = Type.Object({ building_id: Type.Integer({ minimum: 1 }) });

/** Route schemas by role, so every resource documents its routes the same way. */
export const routeSchemas = {
  list: (
    tags: string[],
    summary: string,
    representation: Representation,
    example: ApiRecord,
    params?: TSchema,
  ) => ({
    tags,
    summary,
    ...(params ? { params } : {}),
    querystring: FormatQuery,
    response: {
      200: { description: 'The list', content: listContent(representation, example) },
      ...errorResponses(READ_ERRORS),
    },
  }),
  create: (
    tags: string[],
    summary: string,
    representation: Representation,
    example: ApiRecord,
    body: unknown,
    params?: TSchema,
  ) => ({
    tags,
    summary,
    ...(params ? { params } : {}),
    querystring: FormatQuery,
    body,
    response: {
      201: { description: 'Created; Location names it', content: recordContent(representation, example) },
      ...errorResponses(WRITE_ERRORS),
    },
  }),
  show: (tags: string[], summary: string, representation: Representation, example: ApiRecord) => ({
    tags,
    summary,
    params: IdParams,
    querystring: FormatQuery,
    response: {
      200: { description: 'The record', content: recordContent(representation, example) },
      ...errorResponses(READ_ERRORS),
    },
  }),
  update: (tags: string[], summary: string, body: unknown) => ({
    tags,
    summary,
    params: IdParams,
    querystring: FormatQuery,
    body,
    response: { 204: { description: 'Updated, no body', type: 'null' }, ...errorResponses(WRITE_ERRORS) },
  }),
  remove: (tags: string[], summary: string) => ({
    tags,
    summary,
    params: IdParams,
    querystring: FormatQuery,
    response: { 204: { description: 'Deleted, no body', type: 'null' }, ...errorResponses(READ_ERRORS) },
  }),
};
