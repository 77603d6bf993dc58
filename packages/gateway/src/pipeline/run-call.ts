/**
 * A front door's call, with every attempt it takes: each attempt selects a provider, reserves
 * on its bucket, sends, and is settled or released by its own CallOutcome. A failure before
 * any byte of the answer reached the client may be tried again (retry-policy.ts): on another
 * provider of the model (automatic selection), on the same provider after a backoff (when it
 * proves it did not process the call), or on the next model of the client's fallback list. The
 * front door only says how to answer from one call; it never sees the attempts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type AppError, isAppError } from '@app/http-kit';
import type { UpstreamFailure } from '@app/provider-adapters';
import type { ProviderId, RoutePlan } from '../contracts.ts';
import { answerCall } from './answer.ts';
import { type CallContext, callContext } from './call-context.ts';
import { type PipelineDeps, type PrepareInput, prepareCall } from './prepare-call.ts';
import { admitRequest, type SharedTicket, shareTicket } from './rate-limits.ts';
import { afterFailover, type NextStep, nextStep, retryDelayMs } from './retry-policy.ts';
import type { UpstreamCall } from './upstream-call.ts';

/** How the front door answers from one call: a body, the reply once streaming, or undefined (client gone). */
export type Respond = (call: UpstreamCall) => Promise<unknown>;

export async function runCall(deps: PipelineDeps, input: PrepareInput, respond: Respond): Promise<unknown> {
  const context = callContext(input.request);
  const tokens = input.promptTokens + input.outputTokens(input.plan);
  const ticket = await admitRequest(deps.limiter, input.principal, tokens, input.reply);
  const limits = shareTicket(ticket, deps.pending, (error) =>
    input.request.log.error({ err: error }, 'rate limit finish failed'),
  );
  try {
    return await new Attempts(deps, input, context, limits, respond).run();
  } finally {
    limits.seal();
  }
}

/** An attempt that failed in a way another attempt may fix. */
interface Failed {
  readonly error: AppError;
  readonly failure: UpstreamFailure;
  readonly provider: ProviderId;
}

const RETRY = Symbol('retry');

class Attempts {
  readonly #deps: PipelineDeps;
  readonly #input: PrepareInput;
  readonly #context: CallContext;
  readonly #limits: SharedTicket;
  readonly #respond: Respond;
  readonly #plans: readonly RoutePlan[];
  #planIndex = 0;
  /** Providers of the current model entry already tried. */
  #excluded: ProviderId[] = [];
  #sameRetries = 0;
  /** A same-provider retry of an automatically routed entry goes to this provider. */
  #pinned: ProviderId | undefined;
  /** The last failure of the current model entry. */
  #last: Failed | undefined;
  /** The last upstream failure of any entry: the answer when nothing else serves. */
  #lastError: AppError | undefined;

  constructor(
    deps: PipelineDeps,
    input: PrepareInput,
    context: CallContext,
    limits: SharedTicket,
    respond: Respond,
  ) {
    this.#deps = deps;
    this.#input = input;
    this.#context = context;
    this.#limits = limits;
    this.#respond = respond;
    this.#plans = [input.plan, ...(input.fallbacks ?? [])];
  }

  async run(): Promise<unknown> {
    for (;;) {
      const call = await this.#prepare();
      if (call === RETRY) continue;
      const answer = await this.#send(call);
      if (answer !== RETRY) return answer;
    }
  }

  get #plan(): RoutePlan {
    const plan = this.#plans[this.#planIndex] ?? this.#input.plan;
    return this.#pinned === undefined ? plan : { ...plan, explicitProvider: this.#pinned };
  }

  async #prepare(): Promise<UpstreamCall | typeof RETRY> {
    try {
      return await prepareCall(this.#deps, this.#input, {
        plan: this.#plan,
        excluded: this.#excluded,
        limits: this.#limits.attempt(),
        context: this.#context,
      });
    } catch (error) {
      await this.#unavailable(error);
      return RETRY;
    }
  }

  async #send(call: UpstreamCall): Promise<unknown> {
    try {
      return await answerCall(call, this.#input.reply, () => this.#respond(call));
    } catch (error) {
      const failure = call.init.outcome.failure;
      const committed = this.#input.reply.raw.headersSent;
      if (!isAppError(error) || failure === undefined || committed || this.#context.ended) throw error;
      const provider = call.init.selection.provider;
      this.#last = { error, failure, provider };
      this.#lastError = error;
      const step = nextStep(failure, this.#state(), this.#config(), this.#delay(failure));
      if (step.kind === 'failover') this.#excluded.push(provider);
      else await this.#follow(step, error, provider);
      return RETRY;
    }
  }

  /**
   * No provider of the current entry can take the call now (all failing, tried, or out of
   * budget). After an upstream failure this is the end of failover: retry, next entry, or the
   * upstream's own error. Before any, the entry was unavailable from the start: the next entry
   * of the fallback list may serve, else this is the answer.
   */
  async #unavailable(error: unknown): Promise<void> {
    if (!isAppError(error)) throw error;
    const last = this.#last;
    if (last === undefined || this.#pinned !== undefined) {
      const gatewaySide = error.status === 402 || error.status === 503;
      if (!gatewaySide || !this.#nextEntry()) throw this.#lastError ?? error;
      return;
    }
    const step = afterFailover(last.failure, this.#state(), this.#config(), this.#delay(last.failure));
    await this.#follow(step, last.error, last.provider);
  }

  async #follow(step: NextStep, error: AppError, provider: ProviderId): Promise<void> {
    if (step.kind === 'retry') {
      this.#sameRetries += 1;
      if (this.#plans[this.#planIndex]?.explicitProvider === undefined) this.#pinned = provider;
      await this.#wait(step.waitMs, error);
      return;
    }
    if (step.kind !== 'fallback' || !this.#nextEntry()) throw this.#lastError ?? error;
  }

  #nextEntry(): boolean {
    if (this.#planIndex + 1 >= this.#plans.length) return false;
    this.#planIndex += 1;
    this.#excluded = [];
    this.#sameRetries = 0;
    this.#pinned = undefined;
    this.#last = undefined;
    return true;
  }

  async #wait(ms: number, error: AppError): Promise<void> {
    // The request's signal ends the wait when the client leaves or the deadline passes.
    const signal = this.#context.signal(this.#input.reply, this.#context.remainingMs());
    try {
      await sleep(ms, undefined, { signal });
    } catch {
      throw error;
    }
  }

  #state() {
    return {
      automatic: this.#plan.explicitProvider === undefined,
      providersTried: this.#excluded.length + 1,
      sameRetries: this.#sameRetries,
      fallbackLeft: this.#planIndex + 1 < this.#plans.length,
      remainingMs: this.#context.remainingMs(),
    };
  }

  #config() {
    return this.#deps.upstream.config;
  }

  #delay(failure: UpstreamFailure): number {
    return retryDelayMs(failure, this.#sameRetries);
  }
}
