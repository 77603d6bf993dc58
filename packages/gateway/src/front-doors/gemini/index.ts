/**
 * Gemini's API (what `@google/genai` and Gemini CLI speak), under `/v1beta` and `/v1`:
 * `POST /{version}/models/{model}:{generateContent|streamGenerateContent|countTokens}` and
 * `GET /{version}/models[/{model}]`. Errors answer in Google's envelope. The token comes as
 * `x-goog-api-key`, `?key=` or `Authorization: Bearer` (GEMINI_TOKEN_SOURCES); no other front
 * door reads the first two.
 */
import { type AppError, installErrorHandler } from '@app/http-kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, ModelDirectory } from '../../contracts.ts';
import { renderGatewayError } from '../../error-format.ts';
import { gatewayErrorFromFramework, gatewayErrors } from '../../errors.ts';
import { pendingUntilClose, sendAsBuilt } from '../../pipeline/answer.ts';
import { appliedHeadersHook } from '../../pipeline/applied.ts';
import type { PipelineDeps } from '../../pipeline/prepare-call.ts';
import { countTokensHandler } from './count-tokens.ts';
import { generateHandler } from './handler.ts';
import { CountTokensSchema, GenerateContentSchema } from './request-schema.ts';
import { GEMINI_TOKEN_SOURCES } from './token-sources.ts';
import {
  GEMINI_CLIENT_CONSTRAINT,
  GEMINI_METHOD,
  geminiClientStrategy,
  geminiMethodStrategy,
  isGeminiClient,
} from './client-shape.ts';
import { renderGoogleError } from './google-errors.ts';
import { geminiModel, modelPage } from './models.ts';
import {
  CALL_RESPONSES,
  CallParamsSchema,
  CallQuerySchema,
  COUNT_EXAMPLES,
  CountHeadersSchema,
  GEMINI_SECURITY,
  GenerateHeadersSchema,
  GENERATE_EXAMPLES,
  METHOD_DOCS,
  GET_DESCRIPTION,
  GET_RESPONSES,
  KeyQuerySchema,
  LIST_DESCRIPTION,
  LIST_RESPONSES,
  ModelParamsSchema,
  ModelsQuerySchema,
} from './openapi.ts';
import {
  GEMINI_METHODS,
  type GeminiMethod,
  type GeminiVersion,
  idOfResource,
  parseModelCall,
  streamFraming,
} from './path.ts';

export interface GeminiDeps extends Omit<PipelineDeps, 'pending'> {
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

/** One model in Gemini's shape, or 404 `model_not_found`. */
async function retrieve(deps: GeminiDeps, request: FastifyRequest, name: string) {
  const principal = await deps.access.authenticate(request, GEMINI_TOKEN_SOURCES);
  const model = idOfResource(name);
  const entry = await deps.models.retrieve(principal, model);
  if (!entry) throw gatewayErrors.create('model_not_found', { model }, { param: 'model' });
  return geminiModel(entry);
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
      async (request) => retrieve(deps, request, request.params.model),
    );
  };
}

/** The path after `/{version}/models/` and the path itself (for a 404's message). */
function callPath(request: FastifyRequest, version: GeminiVersion): { tail: string; path: string } {
  const path = request.url.split('?', 1)[0] ?? '';
  return { tail: path.slice(`/${version}/models/`.length), path };
}

/**
 * `POST /{version}/models/*`: one route per method (the method constraint reads the text after
 * the last `:`), each documented as `/{version}/models/{model}:{method}`, and an undocumented one
 * for every other text, whose path parsing answers 404 naming the methods.
 */
function callRoutes(deps: GeminiDeps, version: GeminiVersion, base: string): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const pending = pendingUntilClose(app);
    const generate = generateHandler({ ...deps, log: app.log, pending });
    const count = countTokensHandler({ ...deps, pending });
    const route = `${base}/*`;
    for (const method of GEMINI_METHODS) {
      const examples = method === 'countTokens' ? COUNT_EXAMPLES : GENERATE_EXAMPLES;
      const schema = method === 'countTokens' ? CountTokensSchema : GenerateContentSchema;
      app.post(
        route,
        {
          constraints: { [GEMINI_METHOD]: method },
          schema: {
            tags: ['gemini'],
            security: GEMINI_SECURITY,
            ...METHOD_DOCS[method],
            headers: method === 'countTokens' ? CountHeadersSchema : GenerateHeadersSchema,
            querystring: CallQuerySchema,
            body: { ...schema, 'x-examples': examples },
            response: CALL_RESPONSES[method],
          },
          config: { swaggerTransform: documentedAs(version, method) },
          serializerCompiler: sendAsBuilt,
          onSend: appliedHeadersHook,
        },
        (request, reply) => {
          const { tail, path } = callPath(request, version);
          const call = parseModelCall(tail, path);
          if (call.method === 'countTokens') return count(request, call.model, request.body, reply);
          const framing = streamFraming(request.query.alt);
          return generate(request, { call, body: request.body, framing }, reply);
        },
      );
    }
    app.post(route, { schema: { hide: true } }, async (request) => {
      const { tail, path } = callPath(request, version);
      parseModelCall(tail, path);
      // Unreachable: a method the gateway serves is taken by its own route above.
      throw gatewayErrors.create('not_found', { method: 'POST', path });
    });
  };
}

/** How the OpenAPI document shows a method's wildcard route: its path with `{model}`. */
function documentedAs(version: GeminiVersion, method: GeminiMethod) {
  return ({ schema }: { schema: unknown }) => ({
    schema: { ...(schema as object), params: CallParamsSchema },
    // `::` is a literal colon to the OpenAPI generator (a single one starts a parameter).
    url: `/${version}/models/{model}::${method}`,
  });
}

export function geminiRoutes(deps: GeminiDeps): FastifyPluginAsync {
  return async (app) => {
    app.addConstraintStrategy(geminiClientStrategy);
    app.addConstraintStrategy(geminiMethodStrategy);
    // Everything under /v1beta is Gemini's: unknown paths too answer in Google's envelope.
    await app.register(
      async (scope) => {
        installErrors(scope, renderGoogleError);
        await scope.register(modelRoutes(deps, 'v1beta', '/models'));
        await scope.register(callRoutes(deps, 'v1beta', '/models'));
      },
      { prefix: '/v1beta' },
    );
    await app.register(
      async (scope) => {
        installErrors(scope, renderUnderV1);
        // '' is the prefix itself: '/' would be listed in the OpenAPI document as /v1/models/.
        await scope.register(modelRoutes(deps, 'v1', ''));
        await scope.register(callRoutes(deps, 'v1', ''));
      },
      { prefix: '/v1/models' },
    );
  };
}
