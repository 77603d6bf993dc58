/**
 * A front door as data: the routes of one client API and how that API's requests, answers,
 * streams, errors and token counts are read and written. One generic handler runs every call
 * the same way (authenticate -> decode -> resolve model and fallbacks -> runCall -> encode the
 * JSON answer or stream the dialect); front-doors/register.ts turns a descriptor into routes.
 */
import type { AppError } from '@app/http-kit';
import type { JsonObject, ParsedResponse } from '@app/provider-adapters';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  HTTPMethods,
  RouteHandlerMethod,
} from 'fastify';
import type { ModelDirectory, RoutePlan, TokenSource } from '../contracts.ts';
import type { Upstream } from '../upstream/index.ts';
import { type FrontDoorDeps, resolveFallbackPlans, resolvePlan } from './answer.ts';
import { COST_HEADER, requestCostMicros, usdDecimal, usdOf } from './answer-cost.ts';
import { completeJson } from './complete-json.ts';
import type { ClientRequest } from './prepare-call.ts';
import { runCall } from './run-call.ts';
import type { StreamDialect } from './stream-dialect.ts';
import { respondStream } from './stream-session.ts';
import type { UpstreamCall } from './upstream-call.ts';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface Needs {
  readonly tools: boolean;
  readonly webSearch: boolean;
}

/** What routing needs of a request: the model name, option inputs and capabilities. */
export interface Routed {
  readonly model: string;
  /** Headers plus the option inputs the client put in its body (a header present wins). */
  readonly inputs: Headers;
  readonly needs: Needs;
  /** The body as sent (an upstream of the same API forwards it) and the internal model, on demand. */
  readonly source: ClientRequest;
}

/** A model call as the door reads it from its request. */
export interface DecodedCall extends Routed {
  /** The client's fallback list (body `models`); the source must be the body without it. */
  readonly fallbackModels: readonly string[] | undefined;
  readonly promptTokens: number;
  /** The most output the request may make a model produce (its limit, else the model's). */
  outputTokens(plan: RoutePlan): number;
  readonly stream: boolean;
  /** Called for each attempt once its provider is chosen, before it is answered. */
  onAttempt?(call: UpstreamCall): void;
}

/** Token counting in the door's API; the count's answer is in the door's own shape. */
export interface TokenCounting<Body> {
  decode(request: FastifyRequest, body: Body): Routed;
  /** The gateway's estimate for a body of the door's API (the compressed one when compressed). */
  estimate(body: Body): number;
  /** The count as the API answers it, e.g. `{input_tokens}` or `{totalTokens}`. */
  answer(tokens: number): JsonObject;
}

export interface FrontDoorRoute {
  /** Default POST. */
  readonly method?: HTTPMethods;
  /** Under the door's prefix; '' is the prefix itself. */
  readonly path: string;
  /** A model call, or a token count (the door's `count`). */
  readonly serves: 'call' | 'count';
  /** As /openapi.json documents it: tags, summary, description, security, headers, body, responses. */
  readonly schema: FastifySchema;
  readonly config?: Readonly<Record<string, unknown>>;
  /** Fastify route constraints (of the door's `constraintStrategies`, or Fastify's own). */
  readonly constraints?: Readonly<Record<string, unknown>>;
}

export type ConstraintStrategy = Parameters<FastifyInstance['addConstraintStrategy']>[0];

/** What a door's own routes may use besides the pipeline: the models a principal may call. */
export interface OwnRouteDeps extends FrontDoorDeps {
  readonly models: ModelDirectory;
}

/**
 * A route the door answers itself, not a model call or count (e.g. its API's model list), in
 * the door's scope so that its errors render in the door's envelope.
 */
export interface OwnRoute {
  readonly method: HTTPMethods;
  readonly path: string;
  readonly schema: FastifySchema;
  readonly constraints?: Readonly<Record<string, unknown>>;
  readonly config?: Readonly<Record<string, unknown>>;
  handler(deps: OwnRouteDeps): RouteHandlerMethod;
}

/** A door's own error envelope; without one, errors render as the app's (OpenAI's). */
export interface ErrorRendering {
  render(error: AppError, request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** Header that carries the request id besides X-Request-Id (Anthropic's `request-id`). */
  readonly requestIdHeader?: string;
}

/**
 * One client API. Body is the call route's validated body, CountBody the count route's.
 * Members are methods so that a list of doors of different bodies is a `FrontDoor[]`.
 */
export interface FrontDoor<Body = unknown, CountBody = Body> {
  readonly name: string;
  /** `gen_ai.operation.name` of its calls in traces (default `chat`; Gemini's `generate_content`). */
  readonly genAiOperation?: string;
  /** Where the routes live; with `errors`, unknown paths under it render the door's errors too. */
  readonly prefix?: string;
  readonly routes: readonly FrontDoorRoute[];
  /** Routes of the door's own handling (see OwnRoute). */
  readonly ownRoutes?: readonly OwnRoute[];
  /** Constraint strategies its routes use; added to the app once, whichever door comes first. */
  readonly constraintStrategies?: readonly ConstraintStrategy[];
  /** Where the token is read, first found wins (default: Authorization Bearer, then x-api-key). */
  readonly tokenSources?: readonly TokenSource[];
  readonly errors?: ErrorRendering;
  /** Checks of the headers that come before authentication (e.g. the API version). */
  precheck?(request: FastifyRequest): void;
  /** After authentication; throws an AppError for what the gateway cannot serve. */
  decode(request: FastifyRequest, body: Body, config: Upstream['config']): DecodedCall;
  /**
   * The answer of a non-streamed call, from the parsed upstream response (or its native body),
   * with `cost` (the request's, in US dollars) beside its usage.
   */
  encodeJson(answer: ParsedResponse, call: UpstreamCall, body: Body, cost: number): JsonObject;
  /** How a streamed call's events, end and failures are written. */
  streamDialect(call: UpstreamCall, body: Body): StreamDialect;
  readonly count?: TokenCounting<CountBody>;
}

export type FrontDoorHandler<Body> = (
  request: FastifyRequest,
  body: Body,
  reply: FastifyReply,
) => Promise<unknown>;

/** The handler of a door's call routes. */
export function callHandler<Body>(
  door: FrontDoor<Body, unknown>,
  deps: FrontDoorDeps,
): FrontDoorHandler<Body> {
  const { config } = deps.upstream;
  const streamOptions = { keepAliveMs: config.streamKeepAliveMs };
  return async function frontDoorCall(request, body, reply) {
    door.precheck?.(request);
    const principal = await deps.access.authenticate(request, door.tokenSources);
    const decoded = door.decode(request, body, config);
    const plan = resolvePlan(deps.router, request, decoded.model, decoded.inputs);
    const fallbacks = resolveFallbackPlans(
      deps.router,
      request,
      plan,
      decoded.fallbackModels,
      decoded.inputs,
    );
    const input = {
      request,
      reply,
      plan,
      fallbacks,
      principal,
      needs: decoded.needs,
      promptTokens: decoded.promptTokens,
      outputTokens: decoded.outputTokens,
      source: decoded.source,
    };
    return runCall(deps, input, async (call) => {
      decoded.onAttempt?.(call);
      if (!decoded.stream) {
        const completed = await completeJson(call, request);
        if (completed === undefined) return undefined;
        const micros = requestCostMicros(call);
        reply.header(COST_HEADER, usdDecimal(micros));
        return door.encodeJson(completed, call, body, usdOf(micros));
      }
      return (await respondStream(call, streamOptions, door.streamDialect(call, body))) ? reply : undefined;
    });
  };
}
