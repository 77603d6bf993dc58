/**
 * One call to the selected upstream, shared by the JSON and the streaming responders: the
 * translated request, the abort signal tied to the client's connection, and the endings every
 * call has (success reported to the router; failures reported, released and mapped).
 */

import type { AppError } from '@app/http-kit';
import type { ProviderAdapter, UpstreamFailure, UpstreamHttpRequest } from '@app/provider-adapters';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Principal, RoutePlan, Router, Selection, UpstreamFailureKind } from '../contracts.ts';
import type { Upstream, UpstreamResponse } from '../upstream/index.ts';
import { afterResponse } from './after-response.ts';
import { failureError } from './failures.ts';
import type { Meter } from './metering.ts';

export interface CallInit {
  readonly upstream: Upstream;
  readonly router: Router;
  readonly log: FastifyBaseLogger;
  readonly adapter: ProviderAdapter;
  readonly request: UpstreamHttpRequest;
  readonly plan: RoutePlan;
  readonly selection: Selection;
  readonly principal: Principal;
  readonly meter: Meter;
  readonly reply: FastifyReply;
  readonly pending: Set<Promise<unknown>>;
}

export class UpstreamCall {
  readonly init: CallInit;
  readonly #controller = new AbortController();
  #reported = false;

  constructor(init: CallInit) {
    this.init = init;
    const raw = init.reply.raw;
    // The client went away before the response was complete: stop paying for the upstream.
    raw.once('close', () => {
      if (!raw.writableFinished) this.#controller.abort();
    });
    // ... including while it was being authenticated and budgeted.
    if (raw.destroyed) this.#controller.abort();
  }

  get clientGone(): boolean {
    return this.#controller.signal.aborted;
  }

  send(): Promise<UpstreamResponse> {
    const { upstream, selection, request } = this.init;
    return upstream.send(selection.target, request, this.#controller.signal);
  }

  /** Tells the router how the upstream did (circuit breaker, stickiness); once per call. */
  report(outcome: 'ok' | UpstreamFailureKind): void {
    if (this.#reported) return;
    this.#reported = true;
    const { router, selection, principal, plan, log, pending } = this.init;
    afterResponse(
      pending,
      () => router.report(selection, principal, plan, outcome),
      (error) => log.warn({ err: error }, 'router report failed'),
    );
  }

  /** The upstream failed before producing anything billable. */
  fail(failure: UpstreamFailure): AppError {
    this.report(failure.kind);
    this.init.meter.release(`upstream ${failure.kind}`);
    this.init.log.warn(
      { provider: this.init.selection.provider, kind: failure.kind },
      'upstream call failed',
    );
    return failureError(failure, this.init.selection.provider);
  }

  /** A non-2xx answer: the adapter reads its (bounded) body and says what it means. */
  async failFromResponse(response: UpstreamResponse): Promise<AppError> {
    const body = await response.text(this.init.upstream.config.maxErrorBodyBytes).catch(() => '');
    const failure = this.init.adapter.mapError({ status: response.status, headers: response.headers, body });
    return this.fail(failure);
  }
}
