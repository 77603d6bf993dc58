/**
 * One call to the selected upstream, shared by the JSON and the streaming responders of every
 * front door: the translated request, the abort signal tied to the client's connection, and
 * the outcome that ends it (see call-outcome.ts).
 */
import type { AppError } from '@app/http-kit';
import type { ProviderAdapter, UpstreamHttpRequest, WireApi } from '@app/provider-adapters';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { RoutePlan, Selection } from '../contracts.ts';
import { DeadlineExceeded, type Upstream, type UpstreamResponse } from '../upstream/index.ts';
import { requestFacts } from '../request-log.ts';
import type { CallOutcome } from './call-outcome.ts';

export interface CallInit {
  readonly upstream: Upstream;
  readonly log: FastifyBaseLogger;
  readonly adapter: ProviderAdapter;
  readonly request: UpstreamHttpRequest;
  readonly plan: RoutePlan;
  readonly selection: Selection;
  readonly outcome: CallOutcome;
  readonly reply: FastifyReply;
  /** The API of the front door the client used: the adapter produces native output for it. */
  readonly clientApi: WireApi;
  /** Ledger writes and router reports still running after their response was sent. */
  readonly pending: Set<Promise<unknown>>;
}

export class UpstreamCall {
  readonly init: CallInit;
  readonly #controller = new AbortController();
  readonly #deadline: NodeJS.Timeout;

  constructor(init: CallInit) {
    this.init = init;
    const raw = init.reply.raw;
    // However the upstream trickles (keep-alive comments pass every idle timeout), the call ends
    // at its deadline: a 504, and the reservation settled or released like any other ending.
    const { requestDeadlineMs, flexRequestDeadlineMs } = init.upstream.config;
    const deadlineMs = init.selection.options.tier === 'flex' ? flexRequestDeadlineMs : requestDeadlineMs;
    this.#deadline = setTimeout(() => this.#controller.abort(new DeadlineExceeded()), deadlineMs);
    this.#deadline.unref();
    // The client went away before the response was complete: stop paying for the upstream.
    raw.once('close', () => {
      clearTimeout(this.#deadline);
      if (!raw.writableFinished) this.#controller.abort();
    });
    // ... including while it was being authenticated and budgeted.
    if (raw.destroyed) this.#controller.abort();
  }

  async send(): Promise<UpstreamResponse> {
    const { upstream, selection, request, reply } = this.init;
    const started = performance.now();
    try {
      return await upstream.send(selection.target, request, this.#controller.signal);
    } finally {
      requestFacts(reply.request).upstreamMs = Math.round(performance.now() - started);
    }
  }

  /** A non-2xx answer: the adapter reads its (bounded) body and says what it means. */
  async failFromResponse(response: UpstreamResponse): Promise<AppError> {
    const body = await response.text(this.init.upstream.config.maxErrorBodyBytes).catch(() => '');
    const failure = this.init.adapter.mapError({ status: response.status, headers: response.headers, body });
    return this.init.outcome.failed(failure);
  }
}
