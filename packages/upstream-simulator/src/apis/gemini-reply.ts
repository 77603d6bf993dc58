/**
 * The simulator's deterministic reply (reply.ts speaks OpenAI's shape) for a generateContent
 * request, and the answer in Google's shape: one response, or the chunks of a stream.
 */
import { type Reply, type SimRequest } from '../reply.ts';
import { GEMINI_MODELS, issueSignature } from './gemini-checks.ts';

type Body = Readonly<Record<string, unknown>>;
type Message = { role: string; content: string };

function object(value: unknown): Body | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined;
}

function list(value: unknown): Body[] {
  return Array.isArray(value) ? value.map(object).filter((item) => item !== undefined) : [];
}

function partsText(parts: readonly Body[]): string {
  return parts
    .map((part) => (typeof part.text === 'string' && part.thought !== true ? part.text : ''))
    .join('');
}

/** A user turn of function results becomes `tool` messages, so the reply answers instead of calling again. */
function messagesOf(body: Body): Message[] {
  const messages: Message[] = [];
  const system = partsText(list(object(body.systemInstruction)?.parts));
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const content of list(body.contents)) {
    const parts = list(content.parts);
    const results = parts.filter((part) => part.functionResponse !== undefined);
    for (const result of results)
      messages.push({
        role: 'tool',
        content: JSON.stringify(object(result.functionResponse)?.response ?? {}),
      });
    const text = partsText(parts);
    if (content.role === 'model') messages.push({ role: 'assistant', content: text });
    else if (text !== '' || results.length === 0) messages.push({ role: 'user', content: text });
  }
  return messages;
}

/** The effort the reply spends thought tokens for; Gemini models think unless told not to. */
function effortOf(model: string, body: Body): string {
  const thinking = object(object(body.generationConfig)?.thinkingConfig);
  const level = thinking?.thinkingLevel;
  if (typeof level === 'string') return level.toLowerCase();
  const budget = thinking?.thinkingBudget;
  if (typeof budget === 'number' && budget !== -1) {
    if (budget === 0) return 'none';
    return budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high';
  }
  return GEMINI_MODELS[model]?.signatures ? 'high' : 'medium';
}

function toolChoiceOf(body: Body): unknown {
  const config = object(object(body.toolConfig)?.functionCallingConfig);
  if (config?.mode === 'NONE') return 'none';
  const names = Array.isArray(config?.allowedFunctionNames) ? config.allowedFunctionNames : [];
  if (config?.mode !== 'ANY') return undefined;
  return names.length === 1 ? { function: { name: names[0] } } : 'required';
}

export function simRequestOf(model: string, body: Body): SimRequest {
  const tools = list(body.tools).flatMap((tool) =>
    list(tool.functionDeclarations).map((declaration) => ({
      function: {
        name: declaration.name,
        parameters: declaration.parametersJsonSchema ?? declaration.parameters,
      },
    })),
  );
  const maxTokens = object(body.generationConfig)?.maxOutputTokens;
  return {
    model,
    messages: messagesOf(body),
    ...(tools.length > 0 ? { tools } : {}),
    tool_choice: toolChoiceOf(body),
    ...(typeof maxTokens === 'number' ? { max_tokens: maxTokens } : {}),
    reasoning_effort: effortOf(model, body),
  };
}

export function searchRequested(body: Body): boolean {
  return list(body.tools).some((tool) => tool.googleSearch !== undefined);
}

export interface Answer {
  readonly model: string;
  readonly reply: Reply;
  readonly flex: boolean;
  readonly vertex: boolean;
  readonly search: boolean;
  readonly query: string;
}

function callParts(answer: Answer): Body[] {
  const signs = GEMINI_MODELS[answer.model]?.signatures === true;
  return answer.reply.toolCalls.map((call, index) => {
    const part = { functionCall: { name: call.name, args: JSON.parse(call.arguments) as unknown } };
    // Parallel calls: only the first carries the step's signature, as Gemini 3 sends them.
    return signs && index === 0
      ? { ...part, thoughtSignature: issueSignature(answer.model, call.name, call.arguments) }
      : part;
  });
}

function usageOf(answer: Answer): Body {
  const { reply } = answer;
  const candidates = reply.usage.completion_tokens - reply.reasoningTokens;
  return {
    promptTokenCount: reply.promptTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: reply.usage.total_tokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: reply.promptTokens }],
    ...(reply.reasoningTokens > 0 ? { thoughtsTokenCount: reply.reasoningTokens } : {}),
    trafficType: answer.flex ? 'ON_DEMAND_FLEX' : 'ON_DEMAND',
  };
}

/** One made-up source backing the reply's first words, in Google's grounding shape (UTF-8 offsets). */
function groundingOf(answer: Answer): Body {
  const first = answer.reply.tokens[0] ?? '';
  return {
    webSearchQueries: [answer.query || 'simulated query'],
    groundingChunks: [{ web: { uri: 'https://example.org/simulated-source', title: 'example.org' } }],
    groundingSupports: [
      {
        segment: { startIndex: 0, endIndex: Buffer.byteLength(first), text: first },
        groundingChunkIndices: [0],
      },
    ],
  };
}

function envelope(answer: Answer, parts: Body[], last: boolean): Body {
  const { reply } = answer;
  const finishReason = reply.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP';
  const searched = last && answer.search && reply.toolCalls.length === 0;
  const candidate = {
    content: { role: 'model', parts },
    ...(last ? { finishReason } : {}),
    ...(searched ? { groundingMetadata: groundingOf(answer) } : {}),
    ...(answer.vertex ? {} : { index: 0 }),
  };
  return {
    candidates: [candidate],
    ...(last ? { usageMetadata: usageOf(answer) } : {}),
    modelVersion: answer.model,
    ...(answer.vertex ? { createTime: new Date().toISOString() } : {}),
    responseId: reply.id.replace(/^chatcmpl-sim/, 'sim'),
  };
}

export function responseBody(answer: Answer): string {
  const parts =
    answer.reply.toolCalls.length > 0 ? callParts(answer) : [{ text: answer.reply.tokens.join('') }];
  return JSON.stringify(envelope(answer, parts, true));
}

/** Stream chunks: one per text piece, each function call whole in its own; the last one finishes. */
export function streamChunks(answer: Answer): Body[] {
  const pieces: Body[][] =
    answer.reply.toolCalls.length > 0
      ? callParts(answer).map((part) => [part])
      : answer.reply.tokens.map((text) => [{ text }]);
  if (pieces.length === 0) pieces.push([]);
  return pieces.map((parts, index) => envelope(answer, parts, index === pieces.length - 1));
}
