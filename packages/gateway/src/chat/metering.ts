/**
 * One request's money: the reservation made before the upstream call, closed exactly once,
 * either settled from the usage (real figures, or an estimate when the upstream never sent
 * them) or released when the upstream failed before producing anything. The writes run after
 * the response has been written (see after-response.ts).
 */
import type { TokenUsage } from '@app/provider-adapters';
import type { FastifyBaseLogger } from 'fastify';
import type { Ledger, Price, Reservation, UsageRecord } from '../contracts.ts';
import { afterResponse } from './after-response.ts';
import { costMicros, estimateOutputTokens } from './estimate.ts';

export interface MeterInit {
  readonly ledger: Ledger;
  readonly reservation: Reservation;
  readonly price: Price;
  /** Exact model version, recorded on the ledger row. */
  readonly model: string;
  readonly promptEstimate: number;
  readonly log: FastifyBaseLogger;
  readonly pending: Set<Promise<unknown>>;
}

export class Meter {
  readonly #init: MeterInit;
  #closed = false;

  constructor(init: MeterInit) {
    this.#init = init;
  }

  /**
   * Charges the usage. Without upstream figures (aborted or broken streams) the prompt is the
   * estimate and the output is estimated from the characters already streamed to the client.
   */
  settle(usage: TokenUsage | undefined, status: UsageRecord['status'], streamedChars = 0): void {
    if (this.#closed) return;
    this.#closed = true;
    const { ledger, reservation, price, model, promptEstimate } = this.#init;
    const counted: TokenUsage = usage ?? {
      promptTokens: promptEstimate,
      completionTokens: estimateOutputTokens(streamedChars),
      cachedTokens: 0,
      reasoningTokens: 0,
    };
    const record: UsageRecord = {
      model,
      promptTokens: counted.promptTokens,
      completionTokens: counted.completionTokens,
      cachedTokens: counted.cachedTokens,
      costMicros: costMicros(counted, price),
      status,
    };
    this.#track(() => ledger.settle(reservation, record), 'settle');
  }

  /** Gives the reservation back: the upstream produced nothing billable. */
  release(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#track(() => this.#init.ledger.release(this.#init.reservation, reason), 'release');
  }

  #track(write: () => Promise<void>, what: string): void {
    const { pending, log, reservation } = this.#init;
    afterResponse(pending, write, (error) =>
      log.error({ err: error, reservation: reservation.id }, `ledger ${what} failed`),
    );
  }
}
