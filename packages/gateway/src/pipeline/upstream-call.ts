/**
 * One attempt of a request: a call to the selected upstream, shared by the JSON and the
 * streaming responders of every front door: the translated request, the request's abort signal
 * (its deadline, the client's connection), and the outcome that ends it (see call-outcome.ts).
 */
import type { AppError } from '@app/http-kit';
import type { ProviderAdapter, UpstreamFailure, UpstreamHttpRequest, WireApi } from '@app/provider-adapters';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { RoutePlan, Selection } from '../contracts.ts';
import type { Upstream, UpstreamResponse } from '../upstream/index.ts';
import type { CallContext } from './call-context.ts';
import type { CallOutcome } from './call-outcome.ts';

export interface CallInit {
  readonly upstream: Upstream;
  readonly log: FastifyBaseLogger;
  readonly adapter: ProviderAdapter;
  /** The (first) upstream request. */
  readonly request: UpstreamHttpRequest;
  /** Every upstream request of a call made of several (an embeddings batch split); `request` is the first. */
  readonly batch?: readonly UpstreamHttpRequest[];
  readonly plan: RoutePlan;
  readonly selection: Selection;
  readonly outcome: CallOutcome;
  readonly reply: FastifyReply;
  /** The request's state: its signal, its attempts, its log facts. */
  readonly context: CallContext;
  /** The API of the front door the client used: the adapter produces native output for it. */
  readonly clientApi: WireApi;
  /** Ledger writes and router reports still running after their response was sent. */
  readonly pending: Set<Promise<unknown>>;
}

export class UpstreamCall {
  readonly init: CallInit;

  constructor(init: CallInit) {
    this.init = init;
  }

  /**
   * Sends the request with the request's signal: however the upstream trickles (keep-alive
   * comments pass every idle timeout), the request ends at its deadline (a 504, and the
   * reservation settled or released like any other ending), and when the client goes away.
   */
  async send(request: UpstreamHttpRequest = this.init.request): Promise<UpstreamResponse> {
    const { upstream, selection, reply, context, plan, outcome } = this.init;
    const { requestDeadlineMs, flexRequestDeadlineMs } = upstream.config;
    const deadlineMs = selection.options.tier === 'flex' ? flexRequestDeadlineMs : requestDeadlineMs;
    const signal = context.signal(reply, deadlineMs);
    // The requests of a batch are one attempt: one record, one outcome.
    let attempt = outcome.attempt;
    if (attempt === undefined) {
      attempt = context.attempt(selection.provider, plan.model);
      outcome.attempt = attempt;
      attempt.adapter = selection.target.adapter;
      attempt.url = request.url;
    }
    try {
      const response = await upstream.send(selection.target, request, signal);
      attempt.headersMs = performance.now() - attempt.startedAt;
      return response;
    } finally {
      context.facts.upstreamMs = Math.round(performance.now() - attempt.startedAt);
    }
  }

  /** A non-2xx answer ends the call: the adapter reads its (bounded) body and says what it means. */
  async failFromResponse(response: UpstreamResponse): Promise<AppError> {
    return this.init.outcome.failed(await this.failureOf(response));
  }

  /** What a non-2xx answer means, without ending the call (a batch waits for its other requests). */
  async failureOf(response: UpstreamResponse): Promise<UpstreamFailure> {
    const body = await response.text(this.init.upstream.config.maxErrorBodyBytes).catch(() => '');
    return this.init.adapter.mapError({ status: response.status, headers: response.headers, body });
  }
}
