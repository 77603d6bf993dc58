/**
 * Gemini's API (what `@google/genai` and Gemini CLI speak), under `/v1beta` and `/v1`:
 * `GET /{version}/models[/{model}]`. Errors answer in Google's envelope. The token comes as
 * `x-goog-api-key`, `?key=` or `Authorization: Bearer` (GEMINI_TOKEN_SOURCES); no other front
 * door reads the first two.
 */
import { type AppError, installErrorHandler } from '@app/http-kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, ModelDirectory, TokenSource } from '../../contracts.ts';
import { renderGatewayError } from '../../error-format.ts';
import { gatewayErrorFromFramework, gatewayErrors } from '../../errors.ts';
import { sendAsBuilt } from '../../pipeline/answer.ts';
import { GEMINI_CLIENT_CONSTRAINT, geminiClientStrategy, isGeminiClient } from './client-shape.ts';
import { renderGoogleError } from './google-errors.ts';
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
import { type GeminiVersion, idOfResource } from './path.ts';

/** Where the Gemini routes read the token, first present wins. */
export const GEMINI_TOKEN_SOURCES: readonly TokenSource[] = ['bearer', 'x-goog-api-key', 'key-query'];

export interface GeminiDeps {
  readonly access: AccessControl;
  readonly models: ModelDirectory;
}

type Renderer = (error: AppError, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * Under `/v1/models` OpenAI's clients keep OpenAI's envelope for what matches no route (their
 * own routes there are the routing area's); a Gemini client, or a POST (a Gemini method call),
 * gets Google's.
 */
const renderUnderV1: Renderer = (error, request, reply) =>
  request.method === 'POST' || isGeminiClient(request.headers, request.url)
    ? renderGoogleError(error, request, reply)
    : renderGatewayError(error, request, reply);

function installErrors(app: FastifyInstance, render: Renderer): void {
  installErrorHandler(app, {
    fromFramework: (kind, message, request, param) =>
      gatewayErrorFromFramework(kind, message, request.method, request.url.split('?')[0] ?? '/', param),
    render,
  });
}

/** The routes of one version; `base` is the models collection's path inside the scope. */
function modelRoutes(deps: GeminiDeps, version: GeminiVersion, base: string): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    // Under /v1 the paths are OpenAI's too: these routes answer Gemini clients only.
    const constraints = version === 'v1' ? GEMINI_CLIENT_CONSTRAINT : {};
    // The OpenAPI document has one operation per path and method: under /v1 it is OpenAI's,
    // whose description sends Gemini clients to the /v1beta operations (the same answers).
    const common = {
      tags: ['gemini'],
      security: GEMINI_SECURITY,
      ...(version === 'v1' ? { hide: true } : {}),
    };
    const authenticate = (request: FastifyRequest) => deps.access.authenticate(request, GEMINI_TOKEN_SOURCES);
    app.get(
      base,
      {
        constraints,
        schema: {
          ...common,
          summary: `List models (Gemini API, ${version})`,
          description: LIST_DESCRIPTION,
          querystring: ModelsQuerySchema,
          response: LIST_RESPONSES,
        },
        serializerCompiler: sendAsBuilt,
      },
      async (request) => modelPage(await deps.models.list(await authenticate(request)), request.query),
    );
    app.get(
      `${base}/:model`,
      {
        constraints,
        schema: {
          ...common,
          summary: `Get one model (Gemini API, ${version})`,
          description: GET_DESCRIPTION,
          params: ModelParamsSchema,
          querystring: KeyQuerySchema,
          response: GET_RESPONSES,
        },
        serializerCompiler: sendAsBuilt,
      },
      async (request) => {
        const principal = await authenticate(request);
        const model = idOfResource(request.params.model);
        const entry = await deps.models.retrieve(principal, model);
        if (!entry) throw gatewayErrors.create('model_not_found', { model }, { param: 'model' });
        return geminiModel(entry);
      },
    );
  };
}

export function geminiRoutes(deps: GeminiDeps): FastifyPluginAsync {
  return async (app) => {
    app.addConstraintStrategy(geminiClientStrategy);
    // Everything under /v1beta is Gemini's: unknown paths too answer in Google's envelope.
    await app.register(
      async (scope) => {
        installErrors(scope, renderGoogleError);
        await scope.register(modelRoutes(deps, 'v1beta', '/models'));
      },
      { prefix: '/v1beta' },
    );
    await app.register(
      async (scope) => {
        installErrors(scope, renderUnderV1);
        // '' is the prefix itself: '/' would be listed in the OpenAPI document as /v1/models/.
        await scope.register(modelRoutes(deps, 'v1', ''));
      },
      { prefix: '/v1/models' },
    );
  };
}
