/**
 * The gateway's effort as Claude on Bedrock takes it. Converse hands
 * `additionalModelRequestFields` to the model verbatim, and Claude refuses any key it does not
 * know ("Extra inputs are not permitted"), so only Anthropic's own keys go there: `thinking`
 * and `output_config`, never OpenAI's `reasoning_effort`.
 */
import { AdapterRequestError } from '../adapter.ts';
import type { EffortExpression, OfferProfile } from '../model/profile.ts';
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
 * Claude needs `budget_tokens` below `max_tokens`: the limit is raised to leave the answer the
 * room the client asked for, within the model's ceiling; when even the budget does not fit
 * under the ceiling, thinking is dropped rather than sending a request Claude refuses.
 */
function budgetPlan(
  budgetTokens: number,
  effort: string | undefined,
  maxTokens: number,
  offer: OfferProfile,
) {
  const budget = Math.max(budgetTokens, MIN_BUDGET_TOKENS);
  if (budget >= offer.maxOutputTokens) return { fields: {}, maxTokens, thinking: false };
  const raised = budget < maxTokens ? maxTokens : Math.min(budget + maxTokens, offer.maxOutputTokens);
  const fields = withEffort({ thinking: { type: 'enabled', budget_tokens: budget } }, effort);
  return { fields, maxTokens: raised, thinking: true };
}

export function reasoningPlan(
  reasoning: EffortExpression,
  maxTokens: number,
  offer: OfferProfile,
): ReasoningPlan {
  switch (reasoning.kind) {
    case 'omit':
      return { fields: {}, maxTokens, thinking: false };
    case 'anthropic-budget':
      return budgetPlan(reasoning.budgetTokens, reasoning.effort, maxTokens, offer);
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
