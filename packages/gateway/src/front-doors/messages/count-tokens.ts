/**
 * POST /v1/messages/count_tokens: the prompt's input tokens, free. Authentication and IP rules
 * apply, the model name resolves as on /v1/messages, and the provider is selected and told how
 * the count went the same way (the pipeline's CountCall: a circuit's half-open trial taken by a
 * count is reported or given back); no budget is reserved or charged and no rate limit is
 * counted (nothing is generated). The
 * count comes from the upstream's own counter where it has one (Anthropic's), else from the
 * gateway's estimate; `X-Gateway-Token-Count` says which. A compression level (modifier or
 * header) applies as on /v1/messages, so the count is that of the prompt as it would go upstream,
 * with X-Gateway-Compression.
 */
import { AdapterRequestError, adapterFor, type ModelRequest } from '@app/provider-adapters';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { compress, compressedSource, tokenizerFor } from '../../compression/index.ts';
import type { AccessControl, Compression, RoutePlan, Router } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { resolvePlan } from '../../pipeline/answer.ts';
import { type PipelineDeps, workLimits } from '../../pipeline/prepare-call.ts';
import { type AppliedState, appliedState, noteCompression } from '../../pipeline/applied.ts';
import { CountCall } from '../../pipeline/count-call.ts';
import type { Upstream } from '../../upstream/index.ts';
import {
  betasOf,
  checkVersion,
  estimatePromptTokens,
  messagesSource,
  needsOf,
  routingHeaders,
} from './inputs.ts';
import type { CountTokensRequestBody } from './request-schema.ts';

export const COUNT_SOURCE_HEADER = 'x-gateway-token-count';

export interface CountDeps {
  readonly access: AccessControl;
  readonly router: Router;
  readonly upstream: Upstream;
  /** Router reports still running after their response was sent. */
  readonly pending: Set<Promise<unknown>>;
  readonly compression?: PipelineDeps['compression'];
}

function decoded(decode: () => ModelRequest): ModelRequest {
  try {
    return decode();
  } catch (error) {
    if (!(error instanceof AdapterRequestError)) throw error;
    throw gatewayErrors.create('invalid_request', { reason: error.message });
  }
}

/**
 * The body as /v1/messages would send it at the request's compression level (the body as sent
 * with `off`), its counts recorded for X-Gateway-Compression. There is no max_tokens to count:
 * `compressed` budgets for the model's largest output.
 */
async function compressedBody(
  deps: CountDeps,
  plan: RoutePlan,
  applied: AppliedState,
  input: { body: CountTokensRequestBody; betas: readonly string[]; level: Compression },
): Promise<CountTokensRequestBody> {
  const { level } = input;
  if (level === 'off') return input.body;
  const limits = workLimits(deps.compression);
  const client = messagesSource(input.body, input.betas);
  const result = compress({
    request: decoded(client.decode),
    level,
    budget: plan.contextWindow - plan.maxOutputTokens,
    tokenizer: await tokenizerFor(plan.vendor),
    targetRatio: deps.compression?.targetRatio,
    ...(limits ? { limits } : {}),
  });
  if ('fallback' in result) {
    noteCompression(applied, result);
    return input.body;
  }
  noteCompression(applied, { before: result.before, after: result.after });
  const source = compressedSource(client.source, result.request);
  return (source?.body ?? input.body) as CountTokensRequestBody;
}

export function countTokensHandler(deps: CountDeps) {
  return async function countTokens(
    request: FastifyRequest,
    body: CountTokensRequestBody,
    reply: FastifyReply,
  ): Promise<unknown> {
    const applied = appliedState(request);
    checkVersion(request.headers);
    const principal = await deps.access.authenticate(request);
    const plan = resolvePlan(deps.router, request, body.model, routingHeaders(request.headers, body));

    const call = await CountCall.select(deps, { plan, principal, needs: needsOf(body), log: request.log });
    try {
      const selection = call?.selection;
      const adapter = selection ? adapterFor(selection.target.adapter) : undefined;
      const betas = betasOf(request.headers);
      const level = (selection?.options ?? plan.options).compression;
      const sent = await compressedBody(deps, plan, applied, { body, betas, level });
      let count: number | undefined;
      if (call && adapter?.countTokens) {
        applied.provider = call.selection.provider;
        applied.options = call.selection.options;
        // Past the work budget the body was counted as sent: compression=off, as on /v1/messages.
        noteCompression(applied, applied.compression);
        const { source } = messagesSource(sent, betas);
        count = await call.count(adapter, adapter.countTokens, request, source);
      }
      reply.header(COUNT_SOURCE_HEADER, count === undefined ? 'estimate' : 'upstream');
      return { input_tokens: count ?? estimatePromptTokens(sent) };
    } finally {
      // A count that sent nothing (no counter, a refused body) holds no trial: a no-op once reported.
      call?.release();
    }
  };
}
