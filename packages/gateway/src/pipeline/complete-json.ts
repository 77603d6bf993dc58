/**
 * A non-streamed answer, for every front door: the upstream's body is read and parsed, the call
 * is settled from its usage (or estimated from what was generated), and X-Gateway-Applied learns
 * the tier the upstream says it served. The front door encodes the response in its client's API.
 */
import { isAppError } from '@app/http-kit';
import { AdapterParseError, type ModelResponse, type ParsedResponse } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import { TransportError } from '../upstream/index.ts';
import { appliedState } from './applied.ts';
import { failureFromTransport } from './failures.ts';
import type { CallOutcome, Produced } from './call-outcome.ts';
import type { UpstreamCall } from './upstream-call.ts';

/** Characters of generated text, for estimating output tokens when the upstream sent no usage. */
function generatedChars(response: ModelResponse): number {
  let chars = 0;
  for (const part of response.content) {
    if (part.type === 'text' || part.type === 'thinking') chars += part.text.length;
    else if (part.type === 'tool_call') chars += part.arguments.length + part.name.length;
  }
  return chars;
}

/**
 * The end of a call whose exchange with the upstream threw: undefined when the client went away
 * (the upstream had the request, so it is charged; nothing was produced for the client), else
 * the error thrown, a transport failure as the attempt's failure (failover may follow), charged
 * for what it `produced` before (the answered requests of a batch) as CallOutcome.failed does.
 */
export function endOnSendError(outcome: CallOutcome, error: unknown, produced?: Produced): undefined {
  if (isAppError(error) || !(error instanceof TransportError)) throw error;
  if (error.kind === 'aborted') {
    outcome.clientLeft();
    return undefined;
  }
  throw outcome.failed(failureFromTransport(error), produced);
}

/** An upstream answer the adapter cannot read fails the attempt as a 502; other errors pass. */
export function failOnParseError(outcome: CallOutcome, error: unknown): never {
  if (!(error instanceof AdapterParseError)) throw error;
  throw outcome.failed({ kind: 'server', status: 502, message: `${error.message}.` });
}

async function upstreamBody(call: UpstreamCall): Promise<string | undefined> {
  try {
    const response = await call.send();
    if (response.status < 200 || response.status >= 300) throw await call.failFromResponse(response);
    return await response.text();
  } catch (error) {
    return endOnSendError(call.init.outcome, error);
  }
}

/** Resolves to the settled answer, or undefined when the client has gone away. */
export async function completeJson(
  call: UpstreamCall,
  request: FastifyRequest,
): Promise<ParsedResponse | undefined> {
  const { adapter, outcome, clientApi } = call.init;
  const body = await upstreamBody(call);
  if (body === undefined) return undefined;
  let parsed;
  try {
    parsed = adapter.parseResponse(body, { clientApi });
  } catch (error) {
    failOnParseError(outcome, error);
  }
  const { response } = parsed;
  if (outcome.attempt) {
    outcome.attempt.finishReason = response.finishReason;
    if (response.model !== undefined) outcome.attempt.responseModel = response.model;
  }
  outcome.succeeded({
    usage: response.usage,
    generatedChars: response.usage ? 0 : generatedChars(response),
    ...(response.servedTier ? { servedTier: response.servedTier } : {}),
  });
  const applied = appliedState(request);
  if (response.servedTier && applied.options)
    applied.options = { ...applied.options, tier: response.servedTier };
  return parsed;
}
