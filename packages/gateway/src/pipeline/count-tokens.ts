/**
 * A front door's token count (POST /v1/messages/count_tokens): the prompt's input tokens, free.
 * Authentication and IP rules apply, the model name resolves as on the door's calls, and the
 * provider is selected and told how the count went the same way (CountCall: a circuit's
 * half-open trial taken by a count is reported or given back); no budget is reserved or charged
 * and no rate limit is counted (nothing is generated). The count comes from the upstream's own
 * counter where it has one, else from the door's estimate; `X-Gateway-Token-Count` says which. A
 * compression level (modifier or header) applies as on a call (compress-request.ts), so the
 * count is that of the prompt as it would go upstream, with X-Gateway-Compression.
 */
import {
  AdapterRequestError,
  adapterFor,
  type ModelRequest,
  type SourceBody,
  tokenCounterFor,
} from '@app/provider-adapters';
import { tokenizerFor } from '../compression/index.ts';
import type { Compression, RoutePlan } from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';
import { type FrontDoorDeps, resolvePlan } from './answer.ts';
import { type AppliedState, appliedState, noteCompression } from './applied.ts';
import { compressedRequest, workLimits } from './compress-request.ts';
import { CountCall } from './count-call.ts';
import type { FrontDoor, FrontDoorHandler, TokenCounting } from './front-door.ts';
import type { ClientRequest } from './prepare-call.ts';

export const COUNT_SOURCE_HEADER = 'x-gateway-token-count';

/** A body the door's API cannot express in the internal model is the client's mistake. */
function decoded(decode: () => ModelRequest): ModelRequest {
  try {
    return decode();
  } catch (error) {
    if (!(error instanceof AdapterRequestError)) throw error;
    throw gatewayErrors.create('invalid_request', { reason: error.message });
  }
}

/**
 * The body as a call would send it at the request's compression level (the body as sent with
 * `off`), its counts recorded for X-Gateway-Compression. There is no output limit to count:
 * `compressed` budgets for the model's largest output.
 */
async function countedSource(
  deps: FrontDoorDeps,
  plan: RoutePlan,
  applied: AppliedState,
  client: ClientRequest,
  level: Compression,
): Promise<SourceBody> {
  if (level === 'off') return client.source;
  const settings = {
    level,
    budget: plan.contextWindow - plan.maxOutputTokens,
    tokenizer: await tokenizerFor(plan.vendor),
    targetRatio: deps.compression?.targetRatio,
    limits: workLimits(deps.compression),
  };
  const request = { source: client.source, decode: () => decoded(client.decode) };
  return compressedRequest(request, settings, applied).source ?? client.source;
}

/** The handler of a door's count routes. */
export function countHandler<Body>(
  door: FrontDoor<unknown, Body>,
  counting: TokenCounting<Body>,
  deps: FrontDoorDeps,
): FrontDoorHandler<Body> {
  return async function countTokens(request, body, reply) {
    const applied = appliedState(request);
    door.precheck?.(request);
    const principal = await deps.access.authenticate(request, door.tokenSources);
    const routed = counting.decode(request, body);
    const plan = resolvePlan(deps.router, request, routed.model, routed.inputs);

    const call = await CountCall.select(deps, { plan, principal, needs: routed.needs, log: request.log });
    try {
      const selection = call?.selection;
      const level = (selection?.options ?? plan.options).compression;
      const sent = await countedSource(deps, plan, applied, routed.source, level);
      // Only a counter of the door's API takes the body as sent (the adapter's own, or another).
      const counter = selection ? tokenCounterFor(selection.target.adapter, sent.api) : undefined;
      let count: number | undefined;
      if (call && counter) {
        applied.provider = call.selection.provider;
        applied.options = call.selection.options;
        // Past the work budget the body was counted as sent: compression=off, as on a call.
        noteCompression(applied, applied.compression);
        count = await call.count(adapterFor(call.selection.target.adapter), counter, request, sent);
      }
      reply.header(COUNT_SOURCE_HEADER, count === undefined ? 'estimate' : 'upstream');
      return counting.answer(count ?? counting.estimate(sent.body as Body));
    } finally {
      // A count that sent nothing (no counter, a refused body) holds no trial: a no-op once reported.
      call?.release();
    }
  };
}
