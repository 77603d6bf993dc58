/** A whole generateContent answer as the internal model. */
import { AdapterParseError, type ResponseContext } from '../../adapter.ts';
import { isJsonObject, parseJson, servedModel } from '../../json.ts';
import type { Part, TextPart } from '../../model/content.ts';
import type { ModelResponse, ParsedResponse } from '../../model/response.ts';
import {
  callId,
  candidateOf,
  citationsOf,
  finishReasonOf,
  partsOf,
  promptBlocked,
  responseIdOf,
  searched,
  servedTierOf,
  usageOf,
  type PartView,
} from './read.ts';
import { GEMINI_API } from './types.ts';

/** The answer in the internal model, plus the answer itself for a client that speaks Gemini. */
export function parseGenerateContent(body: string, context?: ResponseContext): ParsedResponse {
  const parsed = parseJson(body);
  if (!isJsonObject(parsed) || (candidateOf(parsed) === undefined && !promptBlocked(parsed)))
    throw new AdapterParseError(
      'The provider answered with something that is not a generateContent response.',
    );
  const id = responseIdOf(parsed, body);
  const candidate = candidateOf(parsed);
  const grounding = candidate?.groundingMetadata;
  const views = partsOf(candidate);
  const content = contentOf(views, id);
  const withCitations = citeLastText(content, citationsOf(grounding, answerText(views)));
  const sawCall = views.some((view) => view.kind === 'call');
  const servedTier = servedTierOf(parsed.usageMetadata);
  const response: ModelResponse = {
    id,
    content: withCitations,
    // A blocked prompt has no candidate at all: the request's own content tripped a filter.
    finishReason:
      candidate === undefined ? 'content_filter' : finishReasonOf(candidate.finishReason, sawCall),
    usage: usageOf(parsed.usageMetadata, searched(grounding)),
    ...(servedTier === undefined ? {} : { servedTier }),
    ...servedModel(parsed.modelVersion),
  };
  return context?.clientApi === GEMINI_API
    ? { response, native: { api: GEMINI_API, body: parsed } }
    : { response };
}

function answerText(views: readonly PartView[]): string {
  return views.map((view) => (view.kind === 'text' ? view.text : '')).join('');
}

/**
 * Adjacent text parts are joined (Google splits answers arbitrarily). A signature Google put
 * on a non-thought part is kept as a text-less thinking part just before it, which the
 * request encoder puts back on the part that follows.
 */
function contentOf(views: readonly PartView[], responseId: string): Part[] {
  const content: Part[] = [];
  let calls = 0;
  for (const view of views) {
    if (view.kind === 'thought') {
      content.push({
        type: 'thinking',
        text: view.text,
        ...(view.signature ? { signature: view.signature } : {}),
      });
      continue;
    }
    if (view.kind === 'call') {
      const id = callId(view, responseId, calls++);
      const signature = view.signature === undefined ? {} : { signature: view.signature };
      content.push({ type: 'tool_call', id, name: view.name, arguments: view.arguments, ...signature });
      continue;
    }
    if (view.signature !== undefined) content.push({ type: 'thinking', text: '', signature: view.signature });
    const last = content.at(-1);
    if (last?.type === 'text') content[content.length - 1] = { ...last, text: last.text + view.text };
    else if (view.text !== '') content.push({ type: 'text', text: view.text });
  }
  return content;
}

function citeLastText(content: Part[], citations: TextPart['citations']): Part[] {
  if (citations === undefined || citations.length === 0) return content;
  const at = content.findLastIndex((part) => part.type === 'text');
  const target = content[at];
  if (target?.type !== 'text') return content;
  return content.map((part, index) => (index === at ? { ...target, citations } : part));
}
