/**
 * The internal model -> a Gemini GenerateContentResponse, for the Gemini front door when the
 * upstream speaks another API (a Gemini upstream is forwarded as it answered). Tool call ids
 * go out as `functionCall.id` (Google's field for them), so a client that echoes them gets
 * its calls matched exactly; thought signatures go out as `thoughtSignature`.
 */
import { isJsonObject, type JsonObject, parseJson } from '../../json.ts';
import type { Citation, Part } from '../../model/content.ts';
import type { FinishReason, ModelResponse } from '../../model/response.ts';
import { NO_USAGE, type Usage } from '../../model/usage.ts';

export interface GeminiEnvelope {
  /** The model the client is shown (`modelVersion`). */
  readonly modelVersion: string;
  readonly responseId: string;
  /**
   * `thinkingConfig.includeThoughts`: thought text is shown only when asked for, as Google
   * does; signatures go out either way (the client must echo them).
   */
  readonly includeThoughts: boolean;
}

const FINISH_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  // Gemini ends a turn with function calls as STOP; the calls themselves say the rest.
  tool_calls: 'STOP',
  content_filter: 'SAFETY',
  pause: 'STOP',
};

export function geminiFinishReason(reason: FinishReason): string {
  return FINISH_REASONS[reason];
}

/** Google's convention is the gateway's: the prompt count includes cached tokens; zeros are left out. */
export function usageToGemini(usage: Usage): JsonObject {
  const candidates = Math.max(0, usage.outputTokens - usage.reasoningTokens);
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedReadTokens > 0 ? { cachedContentTokenCount: usage.cachedReadTokens } : {}),
    ...(usage.reasoningTokens > 0 ? { thoughtsTokenCount: usage.reasoningTokens } : {}),
  };
}

/** Tool arguments are JSON text in the model; Gemini clients get the object. */
export function functionCallPart(id: string, name: string, args: string, signature?: string): JsonObject {
  const parsed = parseJson(args);
  return {
    functionCall: { name, args: isJsonObject(parsed) ? parsed : {}, id },
    ...(signature ? { thoughtSignature: signature } : {}),
  };
}

/** Grounding sources as Google reports them, from the citations on the answer. */
export function groundingOf(citations: readonly Citation[]): JsonObject | undefined {
  const urls = [...new Map(citations.map((citation) => [citation.url, citation])).values()];
  if (urls.length === 0) return undefined;
  return {
    groundingChunks: urls.map((citation) => ({
      web: { uri: citation.url, ...(citation.title === undefined ? {} : { title: citation.title }) },
    })),
  };
}

/**
 * Output parts as Gemini parts. A signature whose thought is not shown goes on the part that
 * follows it, where Google puts it; one with nothing after it rides an empty text part.
 */
export function geminiParts(content: readonly Part[], includeThoughts: boolean): JsonObject[] {
  const parts: JsonObject[] = [];
  let pending: string | undefined;
  const add = (part: JsonObject): void => {
    parts.push(
      pending === undefined || part.thoughtSignature ? part : { ...part, thoughtSignature: pending },
    );
    pending = undefined;
  };
  for (const part of content) {
    if (part.type === 'text' && part.text !== '') add({ text: part.text });
    else if (part.type === 'tool_call')
      add(functionCallPart(part.id, part.name, part.arguments, part.signature));
    else if (part.type === 'thinking' && includeThoughts && part.text !== '')
      add({
        text: part.text,
        thought: true,
        ...(part.signature ? { thoughtSignature: part.signature } : {}),
      });
    else if (part.type === 'thinking' && part.signature) pending = part.signature;
    // Redacted thinking and server tool blocks are another provider's state: Gemini has no place for them.
  }
  if (pending !== undefined) parts.push({ text: '', thoughtSignature: pending });
  return parts;
}

export function encodeGenerateContentResponse(response: ModelResponse, envelope: GeminiEnvelope): JsonObject {
  const citations = response.content.flatMap((part) => (part.type === 'text' ? (part.citations ?? []) : []));
  const grounding = groundingOf(citations);
  return {
    candidates: [
      {
        content: { role: 'model', parts: geminiParts(response.content, envelope.includeThoughts) },
        finishReason: geminiFinishReason(response.finishReason),
        index: 0,
        ...(grounding === undefined ? {} : { groundingMetadata: grounding }),
      },
    ],
    usageMetadata: usageToGemini(response.usage ?? NO_USAGE),
    modelVersion: envelope.modelVersion,
    responseId: envelope.responseId,
  };
}
