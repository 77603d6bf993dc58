/**
 * The Gemini door's routes besides its calls and counts: the model list and one model in
 * Gemini's shape, and the POST of a method the gateway does not serve. They live in the door's
 * scope, so their errors come in its envelope.
 */
import type { FastifyRequest } from 'fastify';
import { gatewayErrors } from '../../errors.ts';
import type { OwnRoute, OwnRouteDeps } from '../../pipeline/front-door.ts';
import { GEMINI_CLIENT_CONSTRAINT } from './client-shape.ts';
import { geminiModel, modelPage } from './models.ts';
import {
  GEMINI_SECURITY,
  GET_DESCRIPTION,
  GET_RESPONSES,
  KeyQuerySchema,
  LIST_DESCRIPTION,
  LIST_RESPONSES,
  ModelParamsSchema,
  ModelsQuerySchema,
} from './openapi.ts';
import { type GeminiVersion, idOfResource, modelCallOfUrl } from './path.ts';
import { GEMINI_TOKEN_SOURCES } from './token-sources.ts';

interface PageQuery {
  readonly pageSize?: number;
  readonly pageToken?: string;
}

/** One model in Gemini's shape, or 404 `model_not_found`. */
async function retrieve(deps: OwnRouteDeps, request: FastifyRequest, name: string) {
  const principal = await deps.access.authenticate(request, GEMINI_TOKEN_SOURCES);
  const model = idOfResource(name);
  const entry = await deps.models.retrieve(principal, model);
  if (!entry) throw gatewayErrors.create('model_not_found', { model }, { param: 'model' });
  return geminiModel(entry);
}

/** GET of the models collection and of one model; `base` is the collection inside the scope. */
export function modelRoutes(version: GeminiVersion, base: string): OwnRoute[] {
  // Under /v1 the paths are OpenAI's too: these routes answer Gemini clients only.
  const constraints = version === 'v1' ? GEMINI_CLIENT_CONSTRAINT : undefined;
  // The OpenAPI document has one operation per path and method: under /v1 it is OpenAI's,
  // whose description sends Gemini clients to the /v1beta operations (the same answers).
  const common = {
    tags: ['gemini'],
    security: GEMINI_SECURITY,
    ...(version === 'v1' ? { hide: true } : {}),
  };
  const scoped = constraints ? { constraints } : {};
  return [
    {
      method: 'GET',
      path: base,
      ...scoped,
      schema: {
        ...common,
        summary: `List models (Gemini API, ${version})`,
        description: LIST_DESCRIPTION,
        querystring: ModelsQuerySchema,
        response: LIST_RESPONSES,
      },
      handler: (deps) => async (request) => {
        const principal = await deps.access.authenticate(request, GEMINI_TOKEN_SOURCES);
        return modelPage(await deps.models.list(principal), request.query as PageQuery);
      },
    },
    {
      method: 'GET',
      path: `${base}/:model`,
      ...scoped,
      schema: {
        ...common,
        summary: `Get one model (Gemini API, ${version})`,
        description: GET_DESCRIPTION,
        params: ModelParamsSchema,
        querystring: KeyQuerySchema,
        response: GET_RESPONSES,
      },
      handler: (deps) => async (request) =>
        retrieve(deps, request, (request.params as { readonly model: string }).model),
    },
  ];
}

/**
 * `POST /{version}/models/*` of any text the method constraint does not take: its path parsing
 * answers 404 naming the methods.
 */
export function unknownMethodRoute(base: string): OwnRoute {
  return {
    method: 'POST',
    path: `${base}/*`,
    schema: { hide: true },
    handler: () => async (request) => {
      modelCallOfUrl(request.url);
      // Unreachable: a method the gateway serves is taken by its own route.
      throw gatewayErrors.create('not_found', { method: 'POST', path: request.url.split('?', 1)[0] ?? '' });
    },
  };
}
