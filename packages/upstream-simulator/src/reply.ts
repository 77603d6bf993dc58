/**
 * Deterministic replies: the same request always gets the same text, tool call and token
 * counts, so tests can assert exact values and benchmarks compare like with like.
 */
import { createHash, randomBytes } from 'node:crypto';
import { plannedCalls, userWords } from './actions.ts';
import { type ToolTurn, toolTurnAnswer, toolTurnStep } from './tool-turn.ts';

const WORDS = [
  'simulated',
  'answer',
  'gateway',
  'token',
  'stream',
  'model',
  'reply',
  'upstream',
  'request',
  'usage',
  'latency',
  'provider',
  'route',
  'ledger',
  'budget',
  'effort',
  'tier',
  'cache',
] as const;

/** Reasoning tokens a real model would spend per effort; counted in completion tokens and inside the output limit. */
export const REASONING_TOKENS: Readonly<Record<string, number>> = {
  minimal: 4,
  low: 8,
  medium: 16,
  high: 32,
  xhigh: 48,
  max: 64,
};

export interface SimRequest {
  readonly model: string;
  readonly messages: ReadonlyArray<{ role?: unknown; content?: unknown }>;
  readonly tools?: ReadonlyArray<{ function?: { name?: unknown; parameters?: unknown } }>;
  readonly tool_choice?: unknown;
  readonly max_tokens?: unknown;
  readonly max_completion_tokens?: unknown;
  readonly reasoning_effort?: unknown;
  readonly parallel_tool_calls?: unknown;
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface Reply {
  readonly id: string;
  /** Content pieces, one per streamed chunk; empty for a tool call. */
  readonly tokens: readonly string[];
  /** One call, or two in parallel when two or more tools are offered and parallel calls allowed. */
  readonly toolCalls: readonly ToolCall[];
  /** Reasoning tokens spent (inside completion_tokens). */
  readonly reasoningTokens: number;
  /** Tokens of the prompt: what a real API reports as input. */
  readonly promptTokens: number;
  readonly finishReason: 'stop' | 'length' | 'tool_calls';
  readonly usage: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
    readonly prompt_tokens_details: { readonly cached_tokens: number };
    readonly completion_tokens_details: { readonly reasoning_tokens: number };
  };
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join(' ');
}

/** About four characters per token, plus a few per message for the chat template. */
export function promptTokens(request: SimRequest): number {
  let chars = 0;
  for (const message of request.messages) chars += contentText(message.content).length;
  if (request.tools) chars += JSON.stringify(request.tools).length;
  return Math.ceil(chars / 4) + 3 * request.messages.length;
}

function limit(request: SimRequest): number | undefined {
  const value = request.max_completion_tokens ?? request.max_tokens;
  return typeof value === 'number' && value >= 0 ? value : undefined;
}

function lastUserText(request: SimRequest): string {
  const last = [...request.messages].reverse().find((message) => message.role === 'user');
  // An agent's tagged notes (`<system-reminder>`) are not what the user asked.
  return userWords(contentText(last?.content));
}

/**
 * What the reply produces within the output limit. Every API the simulator speaks counts
 * reasoning inside that limit (OpenAI `max_completion_tokens`, Anthropic and Bedrock
 * `max_tokens`, Gemini `maxOutputTokens`): reasoning is spent first, the visible output gets
 * what is left, and a reply that does not fit stops with "length" (a tool call that does not
 * fit is not sent half-written: the reply ends empty).
 */
function fitToLimit(
  request: SimRequest,
  planned: { tokens: string[]; toolCalls: ToolCall[]; reasoning: number },
): { tokens: string[]; toolCalls: ToolCall[]; reasoning: number; completion: number; length: boolean } {
  const max = limit(request);
  const reasoning = max === undefined ? planned.reasoning : Math.min(planned.reasoning, max);
  const room = max === undefined ? Number.POSITIVE_INFINITY : max - reasoning;
  if (planned.toolCalls.length > 0) {
    const needed = planned.toolCalls.reduce((sum, call) => sum + Math.ceil(call.arguments.length / 4) + 5, 0);
    if (needed <= room)
      return {
        tokens: [],
        toolCalls: planned.toolCalls,
        reasoning,
        completion: needed + reasoning,
        length: false,
      };
    return { tokens: [], toolCalls: [], reasoning, completion: reasoning, length: true };
  }
  const tokens = planned.tokens.slice(0, room);
  return {
    tokens,
    toolCalls: [],
    reasoning,
    completion: tokens.length + reasoning,
    length: tokens.length < planned.tokens.length,
  };
}

function replyWords(request: SimRequest, digest: Buffer, replyTokens: number): string[] {
  const echo = lastUserText(request).split(/\s+/).filter(Boolean).slice(0, 3).join(' ');
  const words = [`Simulated reply to "${echo}":`];
  for (let i = 0; words.length < replyTokens; i++)
    words.push(WORDS[(digest[i % 32] ?? 0) % WORDS.length] ?? 'x');
  return words.slice(0, replyTokens).map((word, index) => (index === 0 ? word : ` ${word}`));
}

/** What the reply says before the output limit applies: text, or tool calls. */
function plan(
  request: SimRequest,
  digest: Buffer,
  replyTokens: number,
  toolTurn: ToolTurn | undefined,
): { tokens: string[]; toolCalls: ToolCall[] } {
  const text = () => replyWords(request, digest, replyTokens);
  if (toolTurn === undefined) {
    if (lastTurn(request)?.role === 'tool') return { tokens: answerToTool(request), toolCalls: [] };
    const toolCalls = chooseToolCalls(request, digest);
    return { tokens: toolCalls.length > 0 ? [] : text(), toolCalls };
  }
  switch (toolTurnStep(request, toolTurn)) {
    case 'answer':
      return { tokens: answerToTool(request), toolCalls: [] };
    case 'call': {
      const id = `call_sim${digest.subarray(12, 24).toString('hex')}`;
      return {
        tokens: [],
        toolCalls: [{ id, name: toolTurn.name, arguments: JSON.stringify(toolTurn.input) }],
      };
    }
    default:
      return { tokens: text(), toolCalls: [] };
  }
}

/** `toolTurn`: the scripted tool turn (tool-turn.ts) instead of the default tool behaviour. */
export function buildReply(request: SimRequest, replyTokens: number, toolTurn?: ToolTurn): Reply {
  const digest = createHash('sha256')
    .update(JSON.stringify([request.model, request.messages]))
    .digest();
  // Unique per call, as the real APIs' ids are: clients and the gateway's logs key on them.
  const id = `chatcmpl-sim${randomBytes(12).toString('hex')}`;
  const prompt = promptTokens(request);
  const fitted = fitToLimit(request, {
    ...plan(request, digest, replyTokens, toolTurn),
    reasoning: REASONING_TOKENS[String(request.reasoning_effort)] ?? 0,
  });
  const finishReason: Reply['finishReason'] = fitted.length
    ? 'length'
    : fitted.toolCalls.length > 0
      ? 'tool_calls'
      : 'stop';
  return {
    id,
    tokens: fitted.tokens,
    toolCalls: fitted.toolCalls,
    reasoningTokens: fitted.reasoning,
    promptTokens: prompt,
    finishReason,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: fitted.completion,
      total_tokens: prompt + fitted.completion,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: fitted.reasoning },
    },
  };
}

/** A tool result is answered in text, quoting it: the turn ends there, whatever tools are offered. */
function answerToTool(request: SimRequest): string[] {
  const results = request.messages.filter((message) => message.role !== 'system');
  return toolTurnAnswer(contentText(results.at(-1)?.content));
}

/** The last turn of the conversation proper: Claude Code puts `system` notes after the user's turn. */
function lastTurn(request: SimRequest): SimRequest['messages'][number] | undefined {
  return request.messages.findLast((message) => message.role !== 'system');
}

function choiceOf(request: SimRequest): 'auto' | 'required' | { name: string } | 'none' {
  const choice = request.tool_choice;
  if (choice === 'none' || choice === 'required') return choice;
  const name = (choice as { function?: { name?: unknown } } | null | undefined)?.function?.name;
  return typeof name === 'string' ? { name } : 'auto';
}

/**
 * The cautious model's calls (actions.ts): text unless the user's last message asks for an
 * action or the tool choice forces one; one call at a time unless the message names several
 * tools and parallel calls are allowed.
 */
function chooseToolCalls(request: SimRequest, digest: Buffer): ToolCall[] {
  const tools = request.tools ?? [];
  const choice = choiceOf(request);
  if (tools.length === 0 || choice === 'none') return [];
  const last = lastTurn(request);
  const calls = plannedCalls({
    tools,
    userText: last?.role === 'user' ? contentText(last.content) : undefined,
    choice,
    parallel: request.parallel_tool_calls !== false,
  });
  // The first id as before; later ones from the digest's last bytes and their place.
  return calls.map((call, index) => ({
    id:
      index === 0
        ? `call_sim${digest.subarray(12, 24).toString('hex')}`
        : `call_sim${digest.subarray(24, 32).toString('hex')}${index > 1 ? index : ''}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
  }));
}
