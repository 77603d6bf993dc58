/**
 * The simulator's deterministic reply (built from an OpenAI-shaped request, see reply.ts) as
 * Bedrock Converse says it: a Converse JSON body, or ConverseStream event-stream frames.
 */
import { createHash } from 'node:crypto';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { argumentPieces } from '../chunks.ts';
import { contentText, type Reply, type SimRequest } from '../reply.ts';
import { type CacheWrites, NO_CACHE_WRITES } from './prompt-cache.ts';

type Body = Readonly<Record<string, unknown>>;

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const STOP_REASONS = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' } as const;
/** What a thinking budget means as an effort, so the reply spends reasoning tokens alike. */
const BUDGET_EFFORTS: ReadonlyArray<readonly [number, string]> = [
  [1024, 'low'],
  [2048, 'medium'],
  [4096, 'high'],
  [8192, 'xhigh'],
];

function object(value: unknown): Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : {};
}

function blocks(message: Body): Body[] {
  return Array.isArray(message.content) ? message.content.map(object) : [];
}

function blockText(block: Body): string {
  if (typeof block.text === 'string') return block.text;
  const result = object(block.toolResult);
  return Array.isArray(result.content) ? contentText(result.content) : '';
}

/** The effort the request's thinking amounts to; undefined when thinking is off. */
export function thinkingEffort(body: Body): string | undefined {
  const fields = object(body.additionalModelRequestFields);
  const thinking = object(fields.thinking);
  const effort = object(fields.output_config).effort;
  if (thinking.type === 'adaptive') return typeof effort === 'string' ? effort : 'high';
  if (thinking.type !== 'enabled') return undefined;
  const budget = Number(thinking.budget_tokens);
  return BUDGET_EFFORTS.find(([limit]) => budget <= limit)?.[1] ?? 'max';
}

function toolChoice(config: Body): unknown {
  const choice = object(config.toolChoice);
  if (choice.any !== undefined) return 'required';
  const name = object(choice.tool).name;
  return typeof name === 'string' ? { type: 'function', function: { name } } : 'auto';
}

/**
 * Converse as the OpenAI-shaped request the reply builder reads. A user turn carrying tool
 * results becomes a `tool` message, so the reply answers them instead of calling again.
 */
export function simRequest(modelId: string, body: Body): SimRequest {
  const messages: Array<{ role: string; content: string }> = [];
  const system = Array.isArray(body.system) ? body.system.map(object) : [];
  if (system.length > 0) messages.push({ role: 'system', content: system.map(blockText).join(' ').trim() });
  for (const message of Array.isArray(body.messages) ? body.messages.map(object) : []) {
    const content = blocks(message);
    const role = content.some((block) => block.toolResult !== undefined) ? 'tool' : String(message.role);
    messages.push({ role, content: content.map(blockText).join(' ').trim() });
  }
  const config = object(body.toolConfig);
  const tools = (Array.isArray(config.tools) ? config.tools.map(object) : [])
    .map((entry) => object(entry.toolSpec))
    .filter((spec) => typeof spec.name === 'string')
    .map((spec) => ({ function: { name: spec.name, parameters: object(spec.inputSchema).json } }));
  return {
    model: modelId,
    messages,
    tools,
    tool_choice: toolChoice(config),
    max_tokens: object(body.inferenceConfig).maxTokens,
    reasoning_effort: thinkingEffort(body),
  };
}

/** Bedrock's tool-use ids look like `tooluse_<22 characters>`. */
function toolUseId(callId: string): string {
  return `tooluse_${createHash('sha256').update(callId).digest('base64url').slice(0, 22)}`;
}

function reasoning(reply: Reply): { text: string; signature: string } | undefined {
  if (reply.reasoningTokens === 0) return undefined;
  const text = `Simulated reasoning (${reply.reasoningTokens} tokens) before answering.`;
  return { text, signature: createHash('sha256').update(`sig:${reply.id}`).digest('base64') };
}

/** Cache writes sit beside `inputTokens`, detailed by TTL (1h before 5m) when there are any. */
function usage(reply: Reply, cache: CacheWrites) {
  const { prompt_tokens: promptTokens, completion_tokens: outputTokens } = reply.usage;
  const written = cache.fiveMinutes + cache.oneHour;
  const details = [
    ...(cache.oneHour > 0 ? [{ ttl: '1h', inputTokens: cache.oneHour }] : []),
    ...(cache.fiveMinutes > 0 ? [{ ttl: '5m', inputTokens: cache.fiveMinutes }] : []),
  ];
  return {
    inputTokens: promptTokens - written,
    outputTokens,
    totalTokens: promptTokens + outputTokens,
    cacheReadInputTokens: 0,
    cacheWriteInputTokens: written,
    ...(details.length > 0 ? { cacheDetails: details } : {}),
  };
}

export function converseBody(reply: Reply, cache: CacheWrites = NO_CACHE_WRITES): string {
  const content: unknown[] = [];
  const thought = reasoning(reply);
  if (thought !== undefined) content.push({ reasoningContent: { reasoningText: thought } });
  if (reply.tokens.length > 0) content.push({ text: reply.tokens.join('') });
  for (const call of reply.toolCalls) {
    content.push({
      toolUse: { toolUseId: toolUseId(call.id), name: call.name, input: JSON.parse(call.arguments) },
    });
  }
  return JSON.stringify({
    output: { message: { role: 'assistant', content } },
    stopReason: STOP_REASONS[reply.finishReason],
    usage: usage(reply, cache),
    metrics: { latencyMs: 1 },
  });
}

/** Payloads are padded to hide their length; the simulator pads them too. */
function padded(payload: Record<string, unknown>): Uint8Array {
  const p = 'abcdefghijklmnopqrstuvwxyz'.slice(0, 1 + (JSON.stringify(payload).length % 26));
  return new TextEncoder().encode(JSON.stringify({ ...payload, p }));
}

function frame(type: string, payload: Record<string, unknown>): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: padded(payload),
  });
}

export function exceptionFrame(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: new TextEncoder().encode(JSON.stringify({ message })),
  });
}

/** One frame of the stream; `token` marks the frames that carry a text token. */
export interface StreamFrame {
  readonly bytes: Uint8Array;
  readonly token: boolean;
}

function delta(contentBlockIndex: number, value: Record<string, unknown>, token = false): StreamFrame {
  return { bytes: frame('contentBlockDelta', { contentBlockIndex, delta: value }), token };
}

function stop(contentBlockIndex: number): StreamFrame {
  return { bytes: frame('contentBlockStop', { contentBlockIndex }), token: false };
}

export function streamFrames(reply: Reply, cache: CacheWrites = NO_CACHE_WRITES): StreamFrame[] {
  const frames: StreamFrame[] = [{ bytes: frame('messageStart', { role: 'assistant' }), token: false }];
  let index = 0;
  const thought = reasoning(reply);
  if (thought !== undefined) {
    frames.push(delta(index, { reasoningContent: { text: thought.text } }));
    frames.push(delta(index, { reasoningContent: { signature: thought.signature } }), stop(index++));
  }
  if (reply.tokens.length > 0) {
    for (const token of reply.tokens) frames.push(delta(index, { text: token }, true));
    frames.push(stop(index++));
  }
  for (const call of reply.toolCalls) {
    const start = { toolUse: { toolUseId: toolUseId(call.id), name: call.name } };
    frames.push({ bytes: frame('contentBlockStart', { contentBlockIndex: index, start }), token: false });
    for (const input of argumentPieces(call.arguments)) frames.push(delta(index, { toolUse: { input } }));
    frames.push(stop(index++));
  }
  frames.push({
    bytes: frame('messageStop', { stopReason: STOP_REASONS[reply.finishReason] }),
    token: false,
  });
  frames.push({
    bytes: frame('metadata', { usage: usage(reply, cache), metrics: { latencyMs: 1 } }),
    token: false,
  });
  return frames;
}
