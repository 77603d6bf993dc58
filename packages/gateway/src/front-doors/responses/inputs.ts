/**
 * What the gateway reads from a Responses request besides the model name: the option inputs
 * OpenAI clients put in the body, the capabilities the request needs, and what it may cost
 * before the call (prompt estimate and output limit).
 */
import { type ModelRequest, openAIResponses } from '@app/provider-adapters';
import type { RoutePlan } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { CHARS_PER_TOKEN } from '../../pipeline/estimate.ts';
import type { ClientRequest } from '../../pipeline/prepare-call.ts';
import type { ResponsesRequestBody } from './request-schema.ts';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Tokens per input item for the chat template (role markers), as for Chat Completions. */
const PER_ITEM_TOKENS = 4;

/** OpenAI's tier names for the standard tier. */
const STANDARD_TIERS = new Set(['default', 'auto', 'standard']);

/**
 * The gateway keeps no responses: a client continues a conversation by sending all of it again
 * (`store: false`, as Codex CLI does), never by pointing at an earlier response; and the input is
 * a string or a list of items. Anything else is refused before any budget is reserved.
 */
export function checkBody(body: ResponsesRequestBody): void {
  if (typeof body.previous_response_id === 'string')
    throw gatewayErrors.create(
      'invalid_request',
      {
        reason:
          "'previous_response_id' is not supported: this gateway stores no responses. Send the whole conversation in 'input' (with \"store\": false), as Codex CLI does.",
      },
      { param: 'previous_response_id' },
    );
  if (typeof body.input !== 'string' && !Array.isArray(body.input))
    throw gatewayErrors.create(
      'invalid_request',
      { reason: "'input' must be a string or a list of input items." },
      { param: 'input' },
    );
}

/**
 * `reasoning.effort` and `service_tier` in the body count as header inputs (an X-Gateway-*
 * header present wins; a model name modifier wins over both), so a value the model cannot use
 * is ignored and reported in X-Gateway-Ignored instead of failing upstream.
 */
export function routingHeaders(headers: Headers, body: ResponsesRequestBody): Headers {
  const effort = body.reasoning?.effort;
  const tier = body.service_tier;
  const effortInput = typeof effort === 'string' && headers['x-gateway-effort'] === undefined;
  const tierInput = typeof tier === 'string' && headers['x-gateway-service-tier'] === undefined;
  if (!effortInput && !tierInput) return headers;
  const merged: Record<string, string | string[] | undefined> = { ...headers };
  if (effortInput) merged['x-gateway-effort'] = effort;
  if (tierInput) merged['x-gateway-service-tier'] = STANDARD_TIERS.has(tier) ? 'standard' : tier;
  return merged;
}

function isWebSearch(tool: { readonly type: string }): boolean {
  return tool.type === 'web_search' || tool.type.startsWith('web_search_');
}

export function needsOf(body: ResponsesRequestBody): { tools: boolean; webSearch: boolean } {
  const tools = body.tools ?? [];
  return { tools: tools.some((tool) => !isWebSearch(tool)), webSearch: tools.some(isWebSearch) };
}

function chars(item: unknown): number {
  if (typeof item === 'string') return item.length;
  const content = (item as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return content.length;
  return JSON.stringify(item ?? '').length;
}

/** A tokenizer-free estimate of the prompt: about four characters per token. */
export function estimatePromptTokens(body: ResponsesRequestBody): number {
  const items: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
  let total = typeof body.instructions === 'string' ? body.instructions.length : 0;
  for (const item of items) total += chars(item);
  if (body.tools) total += JSON.stringify(body.tools).length;
  return Math.ceil(total / CHARS_PER_TOKEN) + PER_ITEM_TOKENS * items.length;
}

/** The most output the request can make the upstream bill: max_output_tokens, capped by the model's. */
export function maxOutputTokens(body: ResponsesRequestBody, plan: RoutePlan): number {
  const asked = body.max_output_tokens;
  return typeof asked === 'number' ? Math.min(asked, plan.maxOutputTokens) : plan.maxOutputTokens;
}

/**
 * The body as sent (a Responses-API upstream forwards it) plus the internal model, decoded only
 * when an upstream of another API asks for it.
 */
export function responsesSource(body: ResponsesRequestBody): ClientRequest {
  let decoded: ModelRequest | undefined;
  return {
    source: { api: openAIResponses.RESPONSES_API, body },
    decode: () => (decoded ??= openAIResponses.decodeResponsesRequest(body)),
  };
}
