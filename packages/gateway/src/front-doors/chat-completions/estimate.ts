/** What a Chat Completions request may cost, before the call: its prompt and its output limit. */
import type { RoutePlan } from '../../contracts.ts';
import { CHARS_PER_TOKEN } from '../../pipeline/estimate.ts';
import type { ChatRequestBody } from './request-schema.ts';

/** Tokens per message for the chat template (role markers), as OpenAI documents for its models. */
const PER_MESSAGE_TOKENS = 4;

function textLength(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content))
    return content === undefined || content === null ? 0 : JSON.stringify(content).length;
  let length = 0;
  for (const part of content as unknown[]) {
    const text = (part as { text?: unknown } | null)?.text;
    length += typeof text === 'string' ? text.length : JSON.stringify(part).length;
  }
  return length;
}

/** A tokenizer-free estimate of the prompt: about four characters per token. */
export function estimatePromptTokens(body: ChatRequestBody): number {
  let chars = 0;
  for (const message of body.messages) {
    chars += textLength(message.content);
    const calls = (message as { tool_calls?: unknown }).tool_calls;
    if (calls !== undefined) chars += JSON.stringify(calls).length;
  }
  if (body.tools) chars += JSON.stringify(body.tools).length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + PER_MESSAGE_TOKENS * body.messages.length;
}

/**
 * The most output the request can make the upstream bill: the client's limit (capped by the
 * model's) for each of the `n` completions asked for. The prompt is billed once.
 */
export function maxOutputTokens(body: ChatRequestBody, plan: RoutePlan): number {
  const asked = body.max_completion_tokens ?? body.max_tokens;
  const each = typeof asked === 'number' ? Math.min(asked, plan.maxOutputTokens) : plan.maxOutputTokens;
  return each * choicesOf(body);
}

export function choicesOf(body: ChatRequestBody): number {
  return typeof body.n === 'number' ? body.n : 1;
}
