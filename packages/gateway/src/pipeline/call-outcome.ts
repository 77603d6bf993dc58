/**
 * How a call ended, decided in one place and exactly once: the reservation is settled from the
 * usage (real figures, or an estimate when the upstream never sent them) or released when
 * nothing billable happened, and the router hears how the upstream did (circuit breaker,
 * stickiness). Every ending of every front door goes through one of the four methods; a
 * second call is a no-op, so a fault path can always call `gatewayFault()` without knowing
 * whether the money was already dealt with.
 */
import type { AppError } from '@app/http-kit';
import {
  METERS,
  meters,
  metersOf,
  type ServedTier,
  type UpstreamFailure,
  type Usage,
  usageFromMeters,
} from '@app/provider-adapters';
import type { FastifyBaseLogger } from 'fastify';
import type {
  AttemptActivity,
  Ledger,
  LimitTicket,
  Price,
  Principal,
  Reservation,
  RoutePlan,
  Router,
  Selection,
  UpstreamFailureKind,
  UsageRecord,
} from '../contracts.ts';
import type { AttemptRecord, RequestFacts } from './call-context.ts';
import type { SecretRedactor } from '../upstream/index.ts';
import { afterResponse } from './after-response.ts';
import { costMicros } from '../pricing.ts';
import { estimateOutputTokens } from './estimate.ts';
import { failureError } from './failures.ts';
import { boundUsage, type UsageLimits } from './usage-bounds.ts';

export interface OutcomeInit {
  readonly ledger: Ledger;
  readonly router: Router;
  readonly reservation: Reservation;
  readonly selection: Selection;
  readonly principal: Principal;
  readonly plan: RoutePlan;
  readonly price: Price;
  /** The front door's prompt estimate, charged when the upstream reports no usage. */
  readonly promptEstimate: number;
  /** The most output the request could make the upstream bill (what was reserved for). */
  readonly outputLimit: number;
  /** The most server-side web searches it could make (what was reserved for). */
  readonly webSearchLimit: number;
  /** The request's hold on its rate limits: freed with the tokens it really used. */
  readonly limits: LimitTicket;
  /** Counts an upstream usage figure beyond what the request could produce (a metric). */
  readonly onUsageAnomaly?: (provider: string) => void;
  readonly log: FastifyBaseLogger;
  /** Clears the upstream's text of the gateway's credentials before a client or a log sees it. */
  readonly secrets: Pick<SecretRedactor, 'redact'>;
  /** The request's log facts: what was charged goes on its completion line. */
  readonly facts?: RequestFacts;
  /** Ledger writes and router reports still running after their response was sent. */
  readonly pending: Set<Promise<unknown>>;
  /** The request's id and its attempts so far: the activity log's columns of the ledger row. */
  readonly request?: { readonly id: string; readonly attempts: readonly AttemptRecord[] };
}

/** What the client received before the call ended, for charging without upstream figures. */
export interface Produced {
  readonly usage: Usage | undefined;
  /** Characters of generated text already sent (estimate of output tokens). */
  readonly generatedChars: number;
  /** The tier the upstream says it served, when it says: the charge follows it. */
  readonly servedTier?: ServedTier;
}

const NOTHING: Produced = { usage: undefined, generatedChars: 0 };

/** Work of an ending that waits for the response: a ledger write, a rate limit, a router report. */
interface Deferred {
  readonly work: () => Promise<unknown>;
  /** Logged with the error when the work fails. */
  readonly message: string;
}

export class CallOutcome {
  readonly #init: OutcomeInit;
  #closed = false;
  #deferred: Deferred[] = [];
  #failure: UpstreamFailure | undefined;
  /** The call's entry in X-Gateway-Attempts, once it was sent upstream. */
  attempt: AttemptRecord | undefined;

  constructor(init: OutcomeInit) {
    this.#init = init;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The upstream failure the call ended with, if it ended with one (failover decides on it). */
  get failure(): UpstreamFailure | undefined {
    return this.#failure;
  }

  /** The upstream answered in full. */
  succeeded(produced: Produced): void {
    this.#end(() => {
      if (this.attempt) this.attempt.outcome = 'ok';
      this.#settle(produced, 'ok');
      this.#report('ok');
    });
  }

  /** The upstream failed; output already produced is charged, otherwise the budget goes back. */
  failed(failure: UpstreamFailure, produced: Produced = NOTHING): AppError {
    this.#end(() => {
      this.#failure = failure;
      if (this.attempt) {
        this.attempt.outcome = failure.kind;
        this.attempt.status = failure.status;
      }
      if (hasOutput(produced)) this.#settle(produced, 'error');
      else this.#release(`upstream ${failure.kind}`);
      this.#report(failure.kind);
      const { selection, plan } = this.#init;
      const fields = {
        provider: selection.provider,
        model: plan.model,
        kind: failure.kind,
        status: failure.status,
      };
      // Credentials refused by the upstream are the operator's to fix, not a passing failure.
      if (failure.kind === 'auth')
        this.#init.log.error(fields, 'upstream refused the gateway credentials: configuration fault');
      else this.#init.log.warn(fields, 'upstream call failed');
    });
    return failureError(failure, this.#init.selection.provider, this.#init.secrets);
  }

  /** The client left: the upstream had the prompt, so it is charged with whatever was generated. */
  clientLeft(produced: Produced = NOTHING): void {
    this.#end(() => {
      if (this.attempt) this.attempt.outcome = 'client_left';
      this.#settle(produced, 'aborted');
      this.#report('ok');
    });
  }

  /** The request never left (it cannot be expressed for this upstream): the budget goes back. */
  notSent(reason: string): void {
    this.#end(() => this.#release(reason));
  }

  /** A fault of the gateway itself (logged by the caller): not the upstream's, so no report. */
  gatewayFault(produced: Produced = NOTHING): void {
    this.#end(() => {
      if (this.attempt) this.attempt.outcome = 'gateway_error';
      if (hasOutput(produced)) this.#settle(produced, 'error');
      else this.#release('gateway error');
    });
  }

  /** Runs the first ending only, then hands its deferred work over in one piece. */
  #end(decide: () => void): void {
    if (this.#closed) return;
    this.#closed = true;
    decide();
    const attempt = this.attempt;
    if (attempt) attempt.durationMs = performance.now() - attempt.startedAt;
    this.#afterResponse();
  }

  #settle(produced: Produced, status: UsageRecord['status']): void {
    const { ledger, reservation, plan, promptEstimate } = this.#init;
    const price = this.#priceOf(produced.servedTier);
    const usage = this.#bounded(
      produced.usage ??
        usageFromMeters(
          meters({
            [METERS.input]: promptEstimate,
            [METERS.output]: estimateOutputTokens(produced.generatedChars),
          }),
        ),
    );
    this.#finishLimits(usage.inputTokens + usage.outputTokens);
    const cost = costMicros(usage.meters, price);
    const attempt = this.attempt;
    if (attempt) {
      attempt.usage = usage;
      attempt.costMicros = cost;
      if (produced.usage === undefined) attempt.estimated = true;
    }
    const record: UsageRecord = {
      model: plan.model,
      promptTokens: usage.inputTokens,
      completionTokens: usage.outputTokens,
      meters: metersOf(usage),
      costMicros: cost,
      status,
    };
    if (this.#init.facts) this.#init.facts.charged = record;
    // Built when the write runs, after #end has timed the attempt.
    const write = () => ledger.settle(reservation, { ...record, ...this.#activity(produced.servedTier) });
    this.#track(write, 'ledger settle failed');
  }

  /**
   * What the ledger will charge for `usage` (in micros), priced as the ending will price it:
   * bounded to what the request could produce, at the served tier's price. Pure (no log, no
   * metric), so an answer's usage chunk can carry its cost before the call has ended.
   */
  costOf(usage: Usage, servedTier?: ServedTier): number {
    return costMicros(boundUsage(usage, this.#limits()).usage.meters, this.#priceOf(servedTier));
  }

  #limits(): UsageLimits {
    const { plan, outputLimit, webSearchLimit } = this.#init;
    return { inputTokens: plan.contextWindow, outputTokens: outputLimit, webSearches: webSearchLimit };
  }

  /** The usage within what the request could produce; beyond it is logged and counted. */
  #bounded(reported: Usage): Usage {
    const { plan, selection, log, onUsageAnomaly } = this.#init;
    const { usage, exceeded } = boundUsage(reported, this.#limits());
    if (exceeded.length > 0) {
      log.warn(
        { provider: selection.provider, model: plan.model, exceeded, reported, charged: usage },
        'upstream usage beyond what the request could produce; charged at the bound',
      );
      onUsageAnomaly?.(selection.provider);
    }
    return usage;
  }

  /** The served tier's price where the offer has one (priority has none: the asked tier's). */
  #priceOf(served: ServedTier | undefined): Price {
    const { selection, price } = this.#init;
    return served === 'standard' || served === 'flex' ? (selection.prices[served] ?? price) : price;
  }

  #finishLimits(usedTokens: number): void {
    const { limits } = this.#init;
    this.#track(() => limits.finish(usedTokens), 'rate limit finish failed');
  }

  #release(reason: string): void {
    this.#finishLimits(0);
    const { ledger, reservation } = this.#init;
    // The model asked for: after a failover or on a fallback list, rows of one request differ.
    const model = this.#init.plan.model;
    this.#track(
      () => ledger.release(reservation, reason, model, this.#activity(undefined).activity),
      'ledger release failed',
    );
  }

  /** The attempt as the activity log shows it (read once the attempt has ended). */
  #activity(served: ServedTier | undefined): { activity?: AttemptActivity } {
    const { request, selection } = this.#init;
    if (!request) return {};
    const attempt = this.attempt;
    const place = attempt ? request.attempts.indexOf(attempt) + 1 : 0;
    return {
      activity: {
        requestId: request.id,
        attempt: place > 0 ? place : undefined,
        // Never sent: a new request only when no attempt went before (a failover that could not
        // be expressed on its next provider is still the same request).
        newRequest: place > 0 ? place === 1 : request.attempts.length === 0,
        effort: selection.options.effort,
        tier: served ?? selection.options.tier,
        latencyMs: attempt?.durationMs,
        firstTokenMs: attempt?.firstTokenMs,
        outcome: attempt?.outcome === 'pending' ? undefined : attempt?.outcome,
        httpStatus: attempt?.status,
      },
    };
  }

  #report(outcome: 'ok' | UpstreamFailureKind): void {
    const { router, selection, principal, plan } = this.#init;
    this.#track(() => router.report(selection, principal, plan, outcome), 'router report failed');
  }

  #track(work: () => Promise<unknown>, message: string): void {
    this.#deferred.push({ work, message });
  }

  /**
   * An ending's works (two or three) go after the response together: one turn of the event loop
   * and one tracked promise per request instead of one each, which the profile of the JSON path
   * showed as timers and promise chains per request.
   */
  #afterResponse(): void {
    const deferred = this.#deferred;
    if (deferred.length === 0) return;
    this.#deferred = [];
    const { pending, log, reservation } = this.#init;
    const fail = (message: string) => (error: unknown) =>
      log.error({ err: error, reservation: reservation.id }, message);
    const run = async ({ work, message }: Deferred) => {
      try {
        await work();
      } catch (error) {
        fail(message)(error);
      }
    };
    afterResponse(pending, () => Promise.all(deferred.map(run)), fail('deferred work failed'));
  }
}

function hasOutput(produced: Produced): boolean {
  return produced.usage !== undefined || produced.generatedChars > 0;
}
