/**
 * The gateway's edits that every Messages body gets, whether the codec wrote it or the client
 * did (same-API passthrough): the output limit, the effort expression and the tier.
 */
import { AdapterRequestError } from '../../adapter.ts';
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { EffortExpression, OfferProfile, Tier } from '../../model/profile.ts';

/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;
/** With thinking on, Anthropic accepts top_p only from here to 1. */
const MIN_TOP_P_WITH_THINKING = 0.95;

export interface EffortEdits {
  readonly offer: OfferProfile;
  readonly reasoning: EffortExpression;
  readonly tier: Tier;
  /** The client's output limit, if it set one (reasoning included). */
  readonly requestedMaxTokens: number | undefined;
}

/** `max_tokens` is required by the API: the client's limit or the offer's default, within the model's ceiling. */
export function outputLimit(requested: number | undefined, offer: OfferProfile): number {
  return Math.min(requested ?? offer.defaultMaxOutputTokens, offer.maxOutputTokens);
}

export function checkTier(tier: Tier): void {
  if (tier === 'flex') throw new AdapterRequestError('Anthropic models have no flex tier.');
}

function withEffort(body: JsonObject, effort: string | undefined): void {
  const config = isJsonObject(body.output_config) ? { ...body.output_config } : {};
  delete config.effort;
  if (effort !== undefined) config.effort = effort;
  if (Object.keys(config).length > 0) body.output_config = config;
  else delete body.output_config;
}

/**
 * A budget must be at least 1024 and below max_tokens. max_tokens is never raised for it: the
 * client's limit counts reasoning (as every API counts it) and is what the gateway reserved
 * budget for, so the budget shrinks to fit under it, and a limit too small for the smallest
 * budget goes without thinking rather than be refused or billed past the reservation.
 */
function applyBudget(body: JsonObject, budgetTokens: number): boolean {
  const limit = typeof body.max_tokens === 'number' ? body.max_tokens : 0;
  const budget = Math.min(Math.max(MIN_THINKING_BUDGET, budgetTokens), limit - 1);
  if (budget < MIN_THINKING_BUDGET) return false;
  body.thinking = { type: 'enabled', budget_tokens: budget };
  return true;
}

/**
 * Anthropic refuses sampling changes (temperature, top_k, a low top_p) and a forced tool choice
 * (`any`, `tool`) while thinking is on. The gateway chose the effort, so it gives up those
 * instead of the call: sampling falls back to the model's own, and the model may still call
 * the tool under `auto`.
 */
function fitThinking(body: JsonObject): void {
  delete body.temperature;
  delete body.top_k;
  if (typeof body.top_p === 'number' && body.top_p < MIN_TOP_P_WITH_THINKING) delete body.top_p;
  const choice = body.tool_choice;
  if (isJsonObject(choice) && (choice.type === 'any' || choice.type === 'tool')) {
    body.tool_choice = {
      type: 'auto',
      ...(choice.disable_parallel_tool_use === undefined
        ? {}
        : { disable_parallel_tool_use: choice.disable_parallel_tool_use }),
    };
  }
}

/** The model's own sampling: its only accepted temperature (1.0) stays, every other change goes. */
function fixSampling(body: JsonObject): void {
  if (body.temperature !== 1) delete body.temperature;
  delete body.top_p;
  delete body.top_k;
}

/**
 * How the client wants thinking shown (`display`, on both thinking types): the gateway decides
 * whether and how much the model thinks, not how the answer presents it, so this is kept.
 * Claude Code asks for `omitted` or `updates`.
 */
function displayOf(thinking: unknown): unknown {
  return isJsonObject(thinking) && thinking.display !== undefined ? thinking.display : undefined;
}

/**
 * Applies the output limit, effort and tier to `body` in place. `omit` leaves thinking as the
 * body has it (none from the codec; the client's own in passthrough, i.e. the model default
 * the client asked for); any other expression replaces what the client sent, because the
 * gateway's effort decision wins.
 */
export function applyEffort(body: JsonObject, edits: EffortEdits): void {
  checkTier(edits.tier);
  const requested = typeof body.max_tokens === 'number' ? body.max_tokens : edits.requestedMaxTokens;
  body.max_tokens = outputLimit(requested, edits.offer);
  if (edits.offer.fixedSampling) fixSampling(body);
  const { reasoning } = edits;
  if (reasoning.kind === 'omit') return;
  if (reasoning.kind !== 'anthropic-budget' && reasoning.kind !== 'anthropic-adaptive')
    throw new AdapterRequestError(`this model's effort setting (${reasoning.kind}) is not an Anthropic one.`);
  const display = displayOf(body.thinking);
  delete body.thinking;
  withEffort(body, reasoning.effort);
  if (reasoning.kind === 'anthropic-adaptive') body.thinking = { type: 'adaptive' };
  else if (!applyBudget(body, reasoning.budgetTokens)) return;
  if (display !== undefined) body.thinking = { ...(body.thinking as JsonObject), display };
  fitThinking(body);
}
