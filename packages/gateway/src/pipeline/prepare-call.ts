/**
 * Everything between a resolved plan and the upstream request, for every front door: provider
 * selection and the budget reservation, the call's outcome owner, and the translation by the
 * selected provider's adapter (from the client's body as sent where the APIs match, else from
 * the internal model).
 */
import {
  AdapterRequestError,
  adapterFor,
  type BuildInput,
  type ModelRequest,
  type ProviderAdapter,
  type SourceBody,
  type UpstreamHttpRequest,
  type WireApi,
} from '@app/provider-adapters';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type {
  Ledger,
  LimitTicket,
  Principal,
  ProviderId,
  RateLimiter,
  RoutePlan,
  Router,
  Selection,
} from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';
import type { Upstream } from '../upstream/index.ts';
import { tokenizerFor } from '../compression/index.ts';
import { type CallRequest, compressedRequest, workLimits } from './compress-request.ts';
import type { AppliedState, CallContext } from './call-context.ts';
import { CallOutcome } from './call-outcome.ts';
import { selectAndReserve } from './select-and-reserve.ts';
import { type CallInit, UpstreamCall } from './upstream-call.ts';

/** A front door's request: the body as sent, and the internal model, decoded on demand. */
export interface ClientRequest {
  readonly source: SourceBody;
  /** Throws AdapterRequestError for what cannot be translated (a 400 for the client). */
  decode(): ModelRequest;
}

/**
 * A call whose upstream requests the door builds itself once the provider is chosen, not from
 * a chat request (embeddings: one or more calls, a batch split as the upstream needs).
 */
export interface OwnRequests {
  /** The API family of the client's door. */
  readonly api: WireApi;
  /** At least one request; throws AdapterRequestError for what this upstream cannot express. */
  build(selection: Selection, adapter: ProviderAdapter, plan: RoutePlan): readonly UpstreamHttpRequest[];
}

export interface PipelineDeps {
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
  readonly limiter: RateLimiter;
  readonly pending: Set<Promise<unknown>>;
  /** Counts upstream usage figures beyond what a request could produce. */
  readonly onUsageAnomaly?: (provider: string) => void;
  /** `compressed` to a configured share of the prompt (unset: to the context window), and the work bound. */
  readonly compression?: {
    readonly targetRatio?: number | undefined;
    readonly workBudget?: number;
    readonly deadlineMs?: number;
  };
}

export interface PrepareInput {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly plan: RoutePlan;
  /** The client's fallback list, resolved: tried in order once `plan` cannot serve. */
  readonly fallbacks?: readonly RoutePlan[];
  readonly principal: Principal;
  readonly needs: { readonly tools: boolean; readonly webSearch: boolean };
  readonly promptTokens: number;
  /** The most output the request may make a model produce (its max_tokens, else the model's, times n). */
  readonly outputTokens: (plan: RoutePlan) => number;
  readonly source: ClientRequest | OwnRequests;
}

/** What differs between the attempts of one request. */
export interface AttemptInput {
  readonly plan: RoutePlan;
  /** Providers of this plan already tried (automatic selection skips them). */
  readonly excluded: ProviderId[];
  /** The attempt's share of the request's hold on its rate limits. */
  readonly limits: LimitTicket;
  readonly context: CallContext;
}

/** Selects and reserves for one attempt, and builds its upstream request. */
export async function prepareCall(
  deps: PipelineDeps,
  input: PrepareInput,
  attempt: AttemptInput,
): Promise<UpstreamCall> {
  const { plan, context, limits } = attempt;
  const applied = context.applied;
  // Loaded on the first compressed request (tens of MiB); provider constraints only turn it off.
  const tokenizer = plan.options.compression === 'off' ? undefined : await tokenizerFor(plan.vendor);
  const webSearches = input.needs.webSearch ? deps.upstream.config.maxWebSearches : 0;
  const outputTokens = input.outputTokens(plan);
  const { selection, reservation } = await selectAndReserve(deps, {
    plan,
    principal: input.principal,
    needs: input.needs,
    promptTokens: input.promptTokens,
    outputTokens,
    webSearches,
    excluded: attempt.excluded,
    onSelected: (chosen) => noteSelection(applied, input.plan, plan, chosen),
  }).catch(async (error: unknown) => {
    await limits.finish(0);
    throw error;
  });
  const log = input.request.log;
  const outcome = new CallOutcome({
    ...deps,
    reservation,
    selection,
    principal: input.principal,
    plan,
    price: selection.price,
    promptEstimate: input.promptTokens,
    outputLimit: outputTokens,
    webSearchLimit: webSearches,
    limits,
    log,
    secrets: deps.upstream.secrets,
    facts: context.facts,
    request: { id: input.request.id, attempts: context.attempts },
  });
  const adapter = adapterFor(selection.target.adapter);
  const source = input.source;
  if ('build' in source) {
    const parts = { ...deps, log: log as FastifyBaseLogger, adapter, plan, selection, outcome, context };
    return ownCall(source, parts, input.reply);
  }
  const request = translate(() => {
    const client = compressedRequest(
      source,
      {
        level: selection.options.compression,
        budget: plan.contextWindow - outputTokens,
        tokenizer,
        targetRatio: deps.compression?.targetRatio,
        limits: workLimits(deps.compression),
      },
      applied,
    );
    return adapter.buildRequest(buildInput(selection, client, deps.upstream.config.maxWebSearches));
  }, outcome);
  return new UpstreamCall({
    ...deps,
    log: log as FastifyBaseLogger,
    adapter,
    request,
    plan,
    selection,
    outcome,
    reply: input.reply,
    context,
    clientApi: source.source.api,
  });
}

type CallParts = Omit<CallInit, 'request' | 'batch' | 'reply' | 'clientApi'>;

/** A call of the door's own requests (OwnRequests), built for the selected provider. */
function ownCall(source: OwnRequests, parts: CallParts, reply: FastifyReply): UpstreamCall {
  const { selection, adapter, plan, outcome } = parts;
  const batch = translate(() => source.build(selection, adapter, plan), outcome);
  const [request] = batch;
  if (request === undefined) {
    outcome.gatewayFault();
    throw new Error('a call built no upstream request');
  }
  return new UpstreamCall({ ...parts, request, batch, reply, clientApi: source.api });
}

/** What X-Gateway-Applied (and -Ignored, and the lifecycle headers) say about this attempt. */
function noteSelection(applied: AppliedState, primary: RoutePlan, plan: RoutePlan, chosen: Selection): void {
  // A fallback entry (or a retry pinned to a provider) reports its own model's headers.
  if (plan !== primary) {
    applied.lifecycle = plan.lifecycleHeaders;
    const known = applied.ignored ?? [];
    const added = plan.ignored.filter((entry) => !known.includes(entry));
    if (added.length > 0) applied.ignored = [...known, ...added];
  }
  applied.model = plan.model;
  applied.provider = chosen.provider;
  applied.options = chosen.options;
  applied.compression = undefined;
}

function translate<T>(build: () => T, outcome: CallOutcome): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof AdapterRequestError)) {
      outcome.gatewayFault();
      throw error;
    }
    outcome.notSent('not expressible upstream');
    throw gatewayErrors.create('invalid_request', {
      reason: `This request cannot be sent to the selected provider: ${error.message}.`,
    });
  }
}

function buildInput(selection: Selection, client: CallRequest, maxWebSearches: number): BuildInput {
  const { target, options } = selection;
  return {
    source: client.source,
    // A getter: adapters that forward the client's body as sent never decode it.
    get request() {
      return capWebSearches(client.decode(), maxWebSearches);
    },
    offer: target.offer,
    endpoint: target.endpoint,
    reasoning: target.offer.efforts[options.effort] ?? { kind: 'omit' },
    tier: options.tier,
  };
}

/** Each web search is billed: the request may make at most what was reserved for (`max_uses`). */
function capWebSearches(request: ModelRequest, max: number): ModelRequest {
  if (!request.tools.some((tool) => tool.type === 'web_search')) return request;
  const tools = request.tools.map((tool) =>
    tool.type === 'web_search' ? { ...tool, maxUses: Math.min(tool.maxUses ?? max, max) } : tool,
  );
  return { ...request, tools };
}
