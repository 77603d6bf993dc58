/**
 * An upstream token count (POST /v1/messages/count_tokens): its provider is selected as every
 * call's is (the same router, circuit breakers and stickiness), nothing is reserved or charged,
 * and how it ended goes to the router as every call's does. Selection can hand out a half-open
 * circuit's one trial, so a count must say what it learned: answered closes the circuit, a
 * provider fault reopens it, and a count that sent nothing (or was cut off) gives the trial to
 * the next request. Each count ends exactly once.
 */
import { isAppError } from '@app/http-kit';
import {
  AdapterParseError,
  type ProviderAdapter,
  type SourceBody,
  type TokenCounter,
} from '@app/provider-adapters';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Principal, RoutePlan, Router, Selection, UpstreamFailureKind } from '../contracts.ts';
import { TransportError, type Upstream } from '../upstream/index.ts';
import { afterResponse } from './after-response.ts';
import { failureError, failureFromTransport } from './failures.ts';

export interface CountCallDeps {
  readonly router: Router;
  readonly upstream: Upstream;
  /** Router reports still running after their response was sent. */
  readonly pending: Set<Promise<unknown>>;
}

export interface CountInput {
  readonly plan: RoutePlan;
  readonly principal: Principal;
  readonly needs: { readonly tools: boolean; readonly webSearch: boolean };
  readonly log: FastifyBaseLogger;
}

export class CountCall {
  readonly selection: Selection;
  readonly #deps: CountCallDeps;
  readonly #input: CountInput;
  #ended = false;

  constructor(deps: CountCallDeps, input: CountInput, selection: Selection) {
    this.#deps = deps;
    this.#input = input;
    this.selection = selection;
  }

  /**
   * Selects as every call does; undefined when no bucket has budget or no provider is healthy
   * (counting still works then, estimated).
   */
  static async select(deps: CountCallDeps, input: CountInput): Promise<CountCall | undefined> {
    try {
      const selection = await deps.router.select(input.plan, input.principal, input.needs);
      return new CountCall(deps, input, selection);
    } catch (error) {
      if (isAppError(error) && (error.status === 402 || error.status === 503)) return undefined;
      throw error;
    }
  }

  /**
   * The upstream's count, or undefined when it could not give one (no answer, a fault): the
   * estimate serves then. The client's own mistakes and rate limits are its answer (thrown).
   */
  async count(
    adapter: ProviderAdapter,
    counter: TokenCounter,
    request: FastifyRequest,
    source: SourceBody,
  ): Promise<number | undefined> {
    const { upstream } = this.#deps;
    const { target, provider } = this.selection;
    const built = counter.buildRequest({ source, offer: target.offer, endpoint: target.endpoint });
    const controller = new AbortController();
    request.raw.once('close', () => controller.abort());
    try {
      const response = await upstream.send(target, built, controller.signal);
      if (response.status >= 200 && response.status < 300) {
        const count = counter.parseResponse(await response.text());
        this.#report('ok');
        return count;
      }
      const body = await response.text(upstream.config.maxErrorBodyBytes).catch(() => '');
      const failure = adapter.mapError({ status: response.status, headers: response.headers, body });
      this.#report(failure.kind);
      if (failure.kind === 'client' || failure.kind === 'rate_limited')
        throw failureError(failure, provider, upstream.secrets);
      return undefined;
    } catch (error) {
      if (isAppError(error)) throw error;
      if (error instanceof AdapterParseError) this.#report('server');
      else if (error instanceof TransportError && error.kind !== 'aborted')
        this.#report(failureFromTransport(error).kind);
      request.log.warn({ err: error, provider }, 'upstream token count failed; estimated');
      return undefined;
    }
  }

  /** Ends a count that sent nothing or learned nothing: its trial, if it took one, goes back. */
  release(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#deps.router.release(this.selection, this.#input.plan);
  }

  #report(outcome: 'ok' | UpstreamFailureKind): void {
    if (this.#ended) return;
    this.#ended = true;
    const { router, pending } = this.#deps;
    const { principal, plan, log } = this.#input;
    afterResponse(
      pending,
      () => router.report(this.selection, principal, plan, outcome),
      (error) => log.error({ err: error }, 'router report failed'),
    );
  }
}
