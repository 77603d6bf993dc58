/**
 * Reading the pieces of a GenerateContentResponse that a whole response and a stream chunk
 * share: parts, finish reason, usage, served tier, grounding citations.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { Citation } from '../../model/content.ts';
import type { FinishReason, ServedTier } from '../../model/response.ts';
import { tokenCount, type Usage, usageFromMeters } from '../../model/usage.ts';

export type PartView =
  | { readonly kind: 'thought'; readonly text: string; readonly signature?: string }
  | { readonly kind: 'text'; readonly text: string; readonly signature?: string }
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly arguments: string;
      readonly id?: string;
      readonly signature?: string;
    };

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** One wire part as the adapters use it; parts they cannot use (inline images, code) are skipped. */
export function viewPart(raw: unknown): PartView | undefined {
  if (!isJsonObject(raw)) return undefined;
  const signature = text(raw.thoughtSignature) || undefined;
  const sig = signature === undefined ? {} : { signature };
  const call = raw.functionCall;
  if (isJsonObject(call) && typeof call.name === 'string') {
    const id = text(call.id) || undefined;
    const args = isJsonObject(call.args) ? call.args : {};
    return { kind: 'call', name: call.name, arguments: JSON.stringify(args), ...(id ? { id } : {}), ...sig };
  }
  const content = text(raw.text);
  if (content === undefined) return signature === undefined ? undefined : { kind: 'text', text: '', ...sig };
  return { kind: raw.thought === true ? 'thought' : 'text', text: content, ...sig };
}

export function candidateOf(response: JsonObject): JsonObject | undefined {
  const candidates = Array.isArray(response.candidates) ? response.candidates : [];
  const first: unknown = candidates[0];
  return isJsonObject(first) ? first : undefined;
}

export function partsOf(candidate: JsonObject | undefined): PartView[] {
  const content = candidate?.content;
  const parts = isJsonObject(content) && Array.isArray(content.parts) ? content.parts : [];
  return parts.map(viewPart).filter((part) => part !== undefined);
}

/** Why a prompt was refused before any candidate: the request's own content tripped a filter. */
export function promptBlocked(response: JsonObject): boolean {
  const feedback = response.promptFeedback;
  return (
    isJsonObject(feedback) && typeof feedback.blockReason === 'string' && candidateOf(response) === undefined
  );
}

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * MALFORMED_FUNCTION_CALL, OTHER and reasons this code does not know end the turn as `stop`:
 * the model produced what it produced and no client-facing reason describes them better.
 */
export function finishReasonOf(reason: unknown, sawCall: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && FILTERED.has(reason)) return 'content_filter';
  return sawCall ? 'tool_calls' : 'stop';
}

/**
 * Google's prompt count includes the cached tokens (a part of it); thoughts are reported beside
 * the candidates, so the two are disjoint meters as they are.
 */
export function usageOf(metadata: unknown, searched: boolean): Usage | undefined {
  if (!isJsonObject(metadata)) return undefined;
  const prompt = tokenCount(metadata.promptTokenCount) + tokenCount(metadata.toolUsePromptTokenCount);
  const cached = Math.min(tokenCount(metadata.cachedContentTokenCount), prompt);
  const meters: Record<string, number> = {};
  const inputCount = prompt - cached;
  if (inputCount > 0) meters.input = inputCount;
  if (cached > 0) meters.cached_input = cached;
  const outputCount = tokenCount(metadata.candidatesTokenCount);
  if (outputCount > 0) meters.output = outputCount;
  const reasoningCount = tokenCount(metadata.thoughtsTokenCount);
  if (reasoningCount > 0) meters.reasoning = reasoningCount;
  if (searched) meters.web_search_calls = 1;
  return usageFromMeters(meters);
}

/**
 * Only a reported traffic type says which tier served the call; without one (the Developer
 * API often sends none) the served tier is unknown rather than assumed.
 */
export function servedTierOf(metadata: unknown): ServedTier | undefined {
  const traffic = isJsonObject(metadata) ? metadata.trafficType : undefined;
  if (typeof traffic !== 'string') return undefined;
  if (traffic === 'ON_DEMAND_FLEX') return 'flex';
  if (traffic === 'ON_DEMAND_PRIORITY') return 'priority';
  return 'standard';
}

export function searched(grounding: unknown): boolean {
  return (
    isJsonObject(grounding) &&
    Array.isArray(grounding.webSearchQueries) &&
    grounding.webSearchQueries.length > 0
  );
}

function charIndex(utf8: Buffer, byteIndex: unknown): number | undefined {
  if (typeof byteIndex !== 'number' || !Number.isSafeInteger(byteIndex) || byteIndex < 0) return undefined;
  return utf8.subarray(0, byteIndex).toString('utf8').length;
}

/**
 * Grounding sources as URL citations of the answer text. Google gives segment offsets in UTF-8
 * bytes; they are turned into string indices of `answer` here.
 */
export function citationsOf(grounding: unknown, answer: string): Citation[] {
  if (!isJsonObject(grounding)) return [];
  const chunks = Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : [];
  const sources = chunks.map((chunk: unknown) => {
    const web = isJsonObject(chunk) && isJsonObject(chunk.web) ? chunk.web : undefined;
    const url = text(web?.uri);
    if (url === undefined) return undefined;
    const title = text(web?.title);
    return title === undefined ? { url } : { url, title };
  });
  const supports = Array.isArray(grounding.groundingSupports)
    ? grounding.groundingSupports.filter(isJsonObject)
    : [];
  if (supports.length === 0)
    return sources.filter((source) => source !== undefined).map((source) => ({ type: 'url', ...source }));
  const utf8 = Buffer.from(answer, 'utf8');
  return supports.flatMap((support) => {
    const segment = isJsonObject(support.segment) ? support.segment : {};
    const indices = Array.isArray(support.groundingChunkIndices) ? support.groundingChunkIndices : [];
    const startIndex = charIndex(utf8, segment.startIndex ?? 0);
    const endIndex = charIndex(utf8, segment.endIndex);
    const citedText = text(segment.text);
    return indices.flatMap((index: unknown) => {
      const source = typeof index === 'number' ? sources[index] : undefined;
      if (source === undefined) return [];
      const citation: Citation = {
        type: 'url',
        ...source,
        ...(citedText === undefined ? {} : { citedText }),
        ...(startIndex === undefined ? {} : { startIndex }),
        ...(endIndex === undefined ? {} : { endIndex }),
      };
      return [citation];
    });
  });
}

/** The response id, or a stable stand-in derived from the bytes when Google sent none. */
export function responseIdOf(response: JsonObject, raw: string): string {
  const id = text(response.responseId);
  if (id) return id;
  return `gemini-${createHash('sha256').update(raw).digest('hex').slice(0, 24)}`;
}

/** Gemini often sends function calls without ids; the client needs one to answer each call. */
export function callId(
  view: Extract<PartView, { kind: 'call' }>,
  responseId: string,
  ordinal: number,
): string {
  return view.id ?? `call_${responseId}_${ordinal}`;
}
