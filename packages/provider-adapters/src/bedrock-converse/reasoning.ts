/**
 * The gateway's effort as Claude on Bedrock takes it. Converse hands
 * `additionalModelRequestFields` to the model verbatim, and Claude refuses any key it does not
 * know ("Extra inputs are not permitted"), so only Anthropic's own keys go there: `thinking`
 * and `output_config`, never OpenAI's `reasoning_effort`.
 */
import { AdapterRequestError } from '../adapter.ts';
import type { EffortExpression } from '../model/profile.ts';
import type { ClaudeFields } from './wire.ts';

/** Anthropic's smallest thinking budget. */
export const MIN_BUDGET_TOKENS = 1024;

export interface ReasoningPlan {
  /** Empty when thinking stays off. */
  readonly fields: ClaudeFields;
  readonly maxTokens: number;
  /** Thinking is on: Claude then refuses sampling changes and forced tool choices. */
  readonly thinking: boolean;
}

function withEffort(fields: ClaudeFields, effort: string | undefined): ClaudeFields {
  return effort === undefined ? fields : { ...fields, output_config: { effort } };
}

/**
 * Claude needs `budget_tokens` below `maxTokens`. The limit is never raised for it: it counts
 * reasoning and is what the gateway reserved budget for, so the budget shrinks to fit under it,
 * and a limit too small for the smallest budget goes without thinking rather than be refused
 * or billed past the reservation.
 */
function budgetPlan(budgetTokens: number, effort: string | undefined, maxTokens: number) {
  const budget = Math.min(Math.max(budgetTokens, MIN_BUDGET_TOKENS), maxTokens - 1);
  if (budget < MIN_BUDGET_TOKENS) return { fields: {}, maxTokens, thinking: false };
  const fields = withEffort({ thinking: { type: 'enabled', budget_tokens: budget } }, effort);
  return { fields, maxTokens, thinking: true };
}

export function reasoningPlan(reasoning: EffortExpression, maxTokens: number): ReasoningPlan {
  switch (reasoning.kind) {
    case 'omit':
      return { fields: {}, maxTokens, thinking: false };
    case 'anthropic-budget':
      return budgetPlan(reasoning.budgetTokens, reasoning.effort, maxTokens);
    case 'anthropic-adaptive':
      return {
        fields: withEffort({ thinking: { type: 'adaptive' } }, reasoning.effort),
        maxTokens,
        thinking: true,
      };
    default:
      // A catalog entry for another provider's effort: sending it would be refused by Bedrock.
      throw new AdapterRequestError(
        `reasoning effort of kind ${reasoning.kind} cannot be sent to this provider`,
      );
  }
}
