/**
 * The gateway's fields on the one completion line the kit logs per request (http-kit
 * logger.ts): who asked, what was asked and served, how, and what it cost. Each stage notes its
 * facts here as it decides them; this module turns them into log fields once, at completion.
 * Never prompt text, never the token (its id, the `jti`, identifies it).
 */
import type { FastifyRequest } from 'fastify';
import type { Principal } from './contracts.ts';
import { callContext, type RequestFacts } from './pipeline/call-context.ts';

export type { RequestFacts } from './pipeline/call-context.ts';

/** The request's log facts (kept on its CallContext). */
export function requestFacts(request: FastifyRequest): RequestFacts {
  return callContext(request).facts;
}

/** Called by authentication: the caller is known even when the request fails later. */
export function noteCaller(request: FastifyRequest, principal: Principal): void {
  const { userId, projectSlug, tokenId } = principal;
  requestFacts(request).caller = { userId, projectSlug, tokenId };
}

/** A client may send any string as the model; the log keeps a bounded prefix of it. */
const MAX_MODEL_CHARS = 200;

function askedModel(request: FastifyRequest): string | undefined {
  const body = request.body;
  if (body === null || typeof body !== 'object' || !('model' in body)) return undefined;
  const model = body.model;
  return typeof model === 'string' ? model.slice(0, MAX_MODEL_CHARS) : undefined;
}

/** The kit's `requestLogFields` hook: only what is known, so a 404 line stays short. */
export function gatewayRequestLogFields(request: FastifyRequest): Record<string, unknown> | undefined {
  const context = request.gatewayCall;
  const known = context?.facts;
  const applied = context?.applied ?? {};
  const model = askedModel(request);
  if (!context && model === undefined) return undefined;
  // Only the keys that have a value are added: deleting keys afterwards would turn the object
  // into a slow dictionary that the logger then serialises on every request.
  const fields: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => {
    if (value !== undefined) fields[key] = value;
  };
  put('userId', known?.caller?.userId);
  put('project', known?.caller?.projectSlug);
  put('tokenId', known?.caller?.tokenId);
  put('session', known?.session);
  put('model', model);
  put('servedModel', applied.model);
  put('provider', applied.provider);
  put('effort', applied.options?.effort);
  put('tier', applied.options?.tier);
  put('compression', applied.options?.compression);
  put('inputTokens', known?.charged?.promptTokens);
  put('outputTokens', known?.charged?.completionTokens);
  put('costMicros', known?.charged?.costMicros);
  put('upstreamMs', known?.upstreamMs);
  // Only when a call failed over or was retried: the outcome of each attempt, in order.
  if (context && context.attempts.length > 1)
    put(
      'attempts',
      context.attempts.map((a) => `${a.provider}:${a.outcome}`),
    );
  return fields;
}
