/**
 * POST /v1/messages/count_tokens: the prompt's input tokens, free. Authentication and IP rules
 * apply, the model name resolves as on /v1/messages, and the provider is selected the same way;
 * no budget is reserved or charged and no rate limit is counted (nothing is generated). The
 * count comes from the upstream's own counter where it has one (Anthropic's), else from the
 * gateway's estimate; `X-Gateway-Token-Count` says which. A compression level (modifier or
 * header) applies as on /v1/messages, so the count is that of the prompt as it would go upstream,
 * with X-Gateway-Compression.
 */
import { isAppError } from '@app/http-kit';
import {
  AdapterRequestError,
  adapterFor,
  type ModelRequest,
  type ProviderAdapter,
  type TokenCounter,
} from '@app/provider-adapters';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { compress, compressedSource, tokenizerFor } from '../../compression/index.ts';
import type { AccessControl, Compression, RoutePlan, Router, Selection } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { type AppliedState, appliedState } from '../../pipeline/applied.ts';
import { failureError } from '../../pipeline/failures.ts';
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
  readonly compression?: { readonly targetRatio?: number | undefined };
}

/** Selection may find no bucket with budget or no healthy provider: counting still works, estimated. */
async function selectFor(
  deps: CountDeps,
  ...args: Parameters<Router['select']>
): Promise<Selection | undefined> {
  try {
    return await deps.router.select(...args);
  } catch (error) {
    if (isAppError(error) && (error.status === 402 || error.status === 503)) return undefined;
    throw error;
  }
}

/**
 * The upstream's count, or undefined when it could not give one (no answer, a server fault):
 * the estimate serves then. The client's own mistakes (a 4xx) are its answer.
 */
async function upstreamCount(
  deps: CountDeps,
  selection: Selection,
  adapter: ProviderAdapter,
  counter: TokenCounter,
  input: { request: FastifyRequest; body: CountTokensRequestBody },
): Promise<number | undefined> {
  const { source } = messagesSource(input.body, betasOf(input.request.headers));
  const built = counter.buildRequest({
    source,
    offer: selection.target.offer,
    endpoint: selection.target.endpoint,
  });
  const controller = new AbortController();
  input.request.raw.once('close', () => controller.abort());
  try {
    const response = await deps.upstream.send(selection.target, built, controller.signal);
    if (response.status >= 200 && response.status < 300) return counter.parseResponse(await response.text());
    const body = await response.text(deps.upstream.config.maxErrorBodyBytes).catch(() => '');
    const failure = adapter.mapError({ status: response.status, headers: response.headers, body });
    if (failure.kind === 'client' || failure.kind === 'rate_limited')
      throw failureError(failure, selection.provider, deps.upstream.secrets);
    return undefined;
  } catch (error) {
    if (isAppError(error)) throw error;
    input.request.log.warn(
      { err: error, provider: selection.provider },
      'upstream token count failed; estimated',
    );
    return undefined;
  }
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
  const client = messagesSource(input.body, input.betas);
  const result = compress({
    request: decoded(client.decode),
    level,
    budget: plan.contextWindow - plan.maxOutputTokens,
    tokenizer: await tokenizerFor(plan.vendor),
    targetRatio: deps.compression?.targetRatio,
  });
  applied.compression = { before: result.before, after: result.after };
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
    const plan = deps.router.resolve(body.model, routingHeaders(request.headers, body));
    applied.model = plan.model;
    applied.options = plan.options;
    applied.ignored = plan.ignored;

    const selection = await selectFor(deps, plan, principal, needsOf(body));
    const adapter = selection ? adapterFor(selection.target.adapter) : undefined;
    const sent = await compressedBody(deps, plan, applied, {
      body,
      betas: betasOf(request.headers),
      level: (selection?.options ?? plan.options).compression,
    });
    let count: number | undefined;
    if (selection && adapter?.countTokens) {
      applied.provider = selection.provider;
      applied.options = selection.options;
      count = await upstreamCount(deps, selection, adapter, adapter.countTokens, { request, body: sent });
    }
    reply.header(COUNT_SOURCE_HEADER, count === undefined ? 'estimate' : 'upstream');
    return { input_tokens: count ?? estimatePromptTokens(sent) };
  };
}
