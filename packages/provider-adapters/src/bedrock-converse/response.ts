/** A Converse answer (and the figures ConverseStream reports) in the internal model. */
import { createHash } from 'node:crypto';
import { AdapterParseError } from '../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../json.ts';
import type { Part } from '../model/content.ts';
import type { FinishReason, ParsedResponse, ServedTier } from '../model/response.ts';
import { tokenCount, type Usage, usageFromMeters } from '../model/usage.ts';
import { putSideBySidePrompt } from '../model/meters.ts';

/**
 * `malformed_model_output` / `malformed_tool_use`: the model ended its turn with output Bedrock
 * could not parse. No client API has a reason for that; `stop` delivers what was produced
 * (already billed) and, unlike `tool_calls`, does not invite a client to run a broken call.
 */
const FINISH: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  malformed_model_output: 'stop',
  malformed_tool_use: 'stop',
};

export function finishReason(stopReason: unknown): FinishReason {
  return typeof stopReason === 'string' ? (FINISH[stopReason] ?? 'stop') : 'stop';
}

/**
 * Bedrock reports cache reads and writes beside `inputTokens`, disjoint meters as they are;
 * `cacheDetails` splits the writes by TTL, and writes it does not place are 5-minute writes.
 * Bedrock does not say how much of the output was thinking.
 */
export function converseUsage(raw: unknown): Usage | undefined {
  if (!isJsonObject(raw)) return undefined;
  const meters: Record<string, number> = {};
  putSideBySidePrompt(meters, {
    input: tokenCount(raw.inputTokens),
    cachedRead: tokenCount(raw.cacheReadInputTokens),
    written: tokenCount(raw.cacheWriteInputTokens),
    oneHour: cacheWrites(raw.cacheDetails, '1h'),
    fiveMinutes: cacheWrites(raw.cacheDetails, '5m'),
  });
  const outputCount = tokenCount(raw.outputTokens);
  if (outputCount > 0) meters.output = outputCount;
  return usageFromMeters(meters);
}

/** Tokens written with one TTL: `cacheDetails` is `[{ttl: "1h"|"5m", inputTokens}]`. */
function cacheWrites(details: unknown, ttl: string): number {
  if (!Array.isArray(details)) return 0;
  let total = 0;
  for (const detail of details)
    if (isJsonObject(detail) && detail.ttl === ttl) total += tokenCount(detail.inputTokens);
  return total;
}

export function servedTier(raw: unknown): ServedTier | undefined {
  const type = isJsonObject(raw) ? raw.type : undefined;
  if (type === 'flex' || type === 'priority') return type;
  return type === 'default' || type === 'reserved' ? 'standard' : undefined;
}

function reasoningPart(raw: JsonObject): Part | undefined {
  if (typeof raw.redactedContent === 'string')
    return { type: 'redacted_thinking', data: raw.redactedContent };
  const text = isJsonObject(raw.reasoningText) ? raw.reasoningText : undefined;
  if (text === undefined || typeof text.text !== 'string') return undefined;
  const signature = typeof text.signature === 'string' ? text.signature : undefined;
  return { type: 'thinking', text: text.text, ...(signature === undefined ? {} : { signature }) };
}

function contentPart(block: unknown): Part | undefined {
  if (!isJsonObject(block)) return undefined;
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (isJsonObject(block.toolUse)) {
    const { toolUseId, name, input } = block.toolUse;
    if (typeof toolUseId !== 'string' || typeof name !== 'string') return undefined;
    return { type: 'tool_call', id: toolUseId, name, arguments: JSON.stringify(input ?? {}) };
  }
  if (isJsonObject(block.reasoningContent)) return reasoningPart(block.reasoningContent);
  return undefined;
}

/** Converse answers carry no id; one derived from the body keeps retries of the same answer equal. */
function responseId(body: string): string {
  return `bedrock-${createHash('sha256').update(body).digest('hex').slice(0, 24)}`;
}

export function parseConverseResponse(body: string): ParsedResponse {
  const parsed = parseJson(body);
  const output = isJsonObject(parsed) && isJsonObject(parsed.output) ? parsed.output : undefined;
  const message = output !== undefined && isJsonObject(output.message) ? output.message : undefined;
  if (!isJsonObject(parsed) || message === undefined || !Array.isArray(message.content)) {
    throw new AdapterParseError('the provider answered without a Converse output message');
  }
  const content = message.content.map(contentPart).filter((part) => part !== undefined);
  const tier = servedTier(parsed.serviceTier);
  return {
    response: {
      id: responseId(body),
      content,
      finishReason: finishReason(parsed.stopReason),
      usage: converseUsage(parsed.usage),
      ...(tier === undefined ? {} : { servedTier: tier }),
    },
  };
}
