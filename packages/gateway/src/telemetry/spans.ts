/**
 * A finished model request as spans, after the fact: one SERVER span for the request and one
 * CLIENT span per upstream attempt (failover and retries included), built from its CallContext
 * with the times it recorded, so the request path itself does no tracing work. Attribute names
 * follow the OpenTelemetry GenAI semantic conventions; the gateway's own are under `gateway.`.
 */
import {
  type Attributes,
  type Context,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { genAiProviderName } from '@app/provider-adapters';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
} from '@opentelemetry/semantic-conventions/incubating';
import type { AttemptRecord, CallContext } from '../pipeline/call-context.ts';

/** What the HTTP side of a finished request says, besides its CallContext. */
export interface FinishedRequest {
  readonly operation: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  /** The body as the client sent it (model, output limit; messages only when captured). */
  readonly body: unknown;
  /** Epoch milliseconds of the request's start and end. */
  readonly startMs: number;
  readonly endMs: number;
}

const MAX_MODEL_CHARS = 200;

/** Epoch milliseconds of a performance.now() reading. */
export function wallClock(performanceMs: number): number {
  return performance.timeOrigin + performanceMs;
}

function field(body: unknown, key: string): unknown {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined;
}

/** The output limit of any front door's body (OpenAI chat and responses, Anthropic, Gemini). */
function maxTokens(body: unknown): number | undefined {
  const value =
    field(body, 'max_completion_tokens') ??
    field(body, 'max_tokens') ??
    field(body, 'max_output_tokens') ??
    field(field(body, 'generationConfig'), 'maxOutputTokens');
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

function requestedModel(body: unknown, context: CallContext | null): string | undefined {
  const model = field(body, 'model');
  return typeof model === 'string' ? model.slice(0, MAX_MODEL_CHARS) : context?.applied.model;
}

function put(attributes: Attributes, key: string, value: Attributes[string]): void {
  if (value !== undefined) attributes[key] = value;
}

/** The request's outcome: the failure kind of its last attempt, else its status. */
function errorType(status: number, context: CallContext | null): string | undefined {
  if (status < 400) return undefined;
  const last = context?.attempts.at(-1);
  return last && last.outcome !== 'ok' && last.outcome !== 'pending' ? last.outcome : String(status);
}

function serverAttributes(request: FinishedRequest, context: CallContext | null): Attributes {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: request.operation,
    [ATTR_HTTP_REQUEST_METHOD]: request.method,
    [ATTR_HTTP_ROUTE]: request.route,
    [ATTR_HTTP_RESPONSE_STATUS_CODE]: request.status,
  };
  put(attributes, ATTR_GEN_AI_REQUEST_MODEL, requestedModel(request.body, context));
  put(attributes, ATTR_GEN_AI_REQUEST_MAX_TOKENS, maxTokens(request.body));
  put(attributes, ATTR_ERROR_TYPE, errorType(request.status, context));
  if (!context) return attributes;
  const { applied, facts, attempts } = context;
  const last = attempts.at(-1);
  put(attributes, ATTR_GEN_AI_RESPONSE_MODEL, last && servedModel(last));
  put(attributes, ATTR_GEN_AI_USAGE_INPUT_TOKENS, facts.charged?.promptTokens);
  put(attributes, ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, facts.charged?.completionTokens);
  const reason = last?.finishReason;
  if (reason !== undefined) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [reason];
  put(attributes, 'gateway.project', facts.caller?.projectSlug);
  put(attributes, 'gateway.token_id', facts.caller?.tokenId);
  put(attributes, 'gateway.session', facts.session);
  put(attributes, 'gateway.bucket', applied.provider);
  put(attributes, 'gateway.effort', applied.options?.effort);
  put(attributes, 'gateway.tier', applied.options?.tier);
  put(attributes, 'gateway.compression', applied.options?.compression);
  const cost = facts.charged?.costMicros;
  if (cost !== undefined) attributes['gateway.cost_usd'] = Number(cost) / 1e6;
  attributes['gateway.attempts'] = attempts.length;
  return attributes;
}

function host(url: string | undefined): { address: string; port: number | undefined } | undefined {
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    return { address: parsed.hostname, port: parsed.port === '' ? undefined : Number(parsed.port) };
  } catch {
    return undefined;
  }
}

/**
 * The model an attempt's answer says served it; else, for an answer that said nothing (Bedrock),
 * the model asked of it. None for an attempt that got no answer (nor for a count, which has none).
 */
function servedModel(attempt: AttemptRecord): string | undefined {
  return attempt.responseModel ?? (attempt.outcome === 'ok' ? attempt.model : undefined);
}

function failed(attempt: AttemptRecord): boolean {
  return attempt.outcome !== 'ok' && attempt.outcome !== 'client_left' && attempt.outcome !== 'pending';
}

function attemptAttributes(operation: string, attempt: AttemptRecord, index: number): Attributes {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: operation,
    [ATTR_GEN_AI_REQUEST_MODEL]: attempt.model,
    'gateway.provider': attempt.provider,
    'gateway.attempt': index + 1,
    'gateway.outcome': attempt.outcome,
  };
  if (attempt.adapter) attributes[ATTR_GEN_AI_PROVIDER_NAME] = genAiProviderName(attempt.adapter);
  const server = host(attempt.url);
  put(attributes, ATTR_SERVER_ADDRESS, server?.address);
  put(attributes, ATTR_SERVER_PORT, server?.port);
  put(attributes, ATTR_GEN_AI_RESPONSE_MODEL, servedModel(attempt));
  if (attempt.finishReason !== undefined)
    attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [attempt.finishReason];
  const usage = attempt.usage;
  if (usage) {
    attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.inputTokens;
    attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = usage.outputTokens;
    attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cachedReadTokens;
    attributes[ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = usage.cacheWriteTokens;
    attributes[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoningTokens;
  }
  if (attempt.firstTokenMs !== undefined)
    attributes[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = attempt.firstTokenMs / 1000;
  if (attempt.costMicros !== undefined) attributes['gateway.cost_usd'] = attempt.costMicros / 1e6;
  if (attempt.estimated) attributes['gateway.usage_estimated'] = true;
  if (attempt.status !== undefined) attributes['gateway.status'] = attempt.status;
  if (failed(attempt)) attributes[ATTR_ERROR_TYPE] = attempt.outcome;
  return attributes;
}

/** Span name per the conventions: `{gen_ai.operation.name} {gen_ai.request.model}`. */
function spanName(operation: string, model: string | undefined): string {
  return model === undefined ? operation : `${operation} ${model}`;
}

/** Records the request's spans under `parent`: the client's trace context, or the root one. */
export function recordSpans(
  tracer: Tracer,
  parent: Context,
  request: FinishedRequest,
  context: CallContext | null,
  extra: Attributes = {},
): void {
  const attributes = { ...serverAttributes(request, context), ...extra };
  const name = spanName(request.operation, attributes[ATTR_GEN_AI_REQUEST_MODEL] as string | undefined);
  const server = tracer.startSpan(
    name,
    { kind: SpanKind.SERVER, startTime: request.startMs, attributes },
    parent,
  );
  if (request.status >= 500) server.setStatus({ code: SpanStatusCode.ERROR });
  if (server.isRecording() && context) {
    const inServer = trace.setSpan(parent, server);
    context.attempts.forEach((attempt, index) => {
      const start = wallClock(attempt.startedAt);
      const end = attempt.durationMs === undefined ? request.endMs : start + attempt.durationMs;
      const span = tracer.startSpan(
        spanName(request.operation, attempt.model),
        {
          kind: SpanKind.CLIENT,
          startTime: start,
          attributes: attemptAttributes(request.operation, attempt, index),
        },
        inServer,
      );
      if (failed(attempt)) span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.outcome });
      span.end(end);
    });
  }
  server.end(request.endMs);
}
