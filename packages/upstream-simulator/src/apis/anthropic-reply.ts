/**
 * The simulator's deterministic reply (reply.ts) in Messages form: the request is read as the
 * OpenAI-shaped SimRequest that buildReply understands, and the reply comes back as a Message
 * JSON body or as the Messages event stream, with thinking and web search when asked for.
 */
import { createHash } from 'node:crypto';
import { argumentPieces } from '../chunks.ts';
import { buildReply, contentText, type Reply, type SimRequest } from '../reply.ts';
import type { ToolTurn } from '../tool-turn.ts';
import { type CacheWrites, messagesCacheWrites } from './prompt-cache.ts';
import { thinkingEffort } from './anthropic-rules.ts';

type Body = Readonly<Record<string, unknown>>;
type Block = Record<string, unknown>;

function list(value: unknown): Body[] {
  return Array.isArray(value)
    ? value.filter((item): item is Body => typeof item === 'object' && item !== null)
    : [];
}

function isWebSearch(tool: Body): boolean {
  return typeof tool.type === 'string' && tool.type.startsWith('web_search_');
}

/** Text of a turn, tool results' contents included. */
function turnText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((block) => (block.type === 'tool_result' ? contentText(block.content) : contentText([block])))
    .join(' ');
}

/** A user turn that carries tool results reads as OpenAI's `tool` role, so the reply answers it. */
export function simRequest(model: string, body: Body): SimRequest {
  const system = typeof body.system === 'string' ? body.system : contentText(body.system);
  const messages = list(body.messages).map((message) => {
    const results = list(message.content).some((block) => block.type === 'tool_result');
    return { role: results ? 'tool' : message.role, content: turnText(message.content) };
  });
  const choice =
    typeof body.tool_choice === 'object' && body.tool_choice !== null ? (body.tool_choice as Body) : {};
  return {
    model,
    messages: system === '' ? messages : [{ role: 'system', content: system }, ...messages],
    tools: list(body.tools)
      .filter((tool) => !isWebSearch(tool))
      .map((tool) => ({ function: { name: tool.name, parameters: tool.input_schema } })),
    tool_choice:
      choice.type === 'none'
        ? 'none'
        : choice.type === 'tool'
          ? { type: 'function', function: { name: choice.name } }
          : choice.type === 'any'
            ? 'required'
            : undefined,
    parallel_tool_calls: choice.disable_parallel_tool_use !== true,
    max_tokens: body.max_tokens,
    reasoning_effort: thinkingEffort(body),
  };
}

export interface MessagesReply {
  readonly reply: Reply;
  readonly id: string;
  readonly model: string;
  readonly thinking: boolean;
  readonly webSearch: boolean;
  readonly query: string;
  /** What the request's `cache_control` breakpoints wrote (none are ever read here). */
  readonly cache: CacheWrites;
}

export function messagesReply(
  model: string,
  body: Body,
  replyTokens: number,
  toolTurn?: ToolTurn,
): MessagesReply {
  const request = simRequest(model, body);
  const lastRole = request.messages.at(-1)?.role;
  const webSearch = list(body.tools).some(isWebSearch) && lastRole !== 'tool';
  const reply = buildReply(webSearch ? { ...request, tools: [] } : request, replyTokens, toolTurn);
  const query = contentText(request.messages.at(-1)?.content).trim().slice(0, 80);
  return {
    reply,
    id: `msg_sim${reply.id.slice('chatcmpl-sim'.length)}`,
    model,
    thinking: reply.reasoningTokens > 0,
    webSearch,
    query,
    cache: messagesCacheWrites(body, reply.promptTokens),
  };
}

const STOP: Readonly<Record<Reply['finishReason'], string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
};

const RESULT_URL = 'https://example.org/simulated-result';

function signature(reply: MessagesReply): string {
  return createHash('sha256').update(`thinking:${reply.id}`).digest('base64');
}

function thinkingText(reply: MessagesReply): string {
  return `Simulated reasoning about "${reply.query}".`;
}

function searchBlocks(reply: MessagesReply): [Block, Block] {
  const id = `srvtoolu_sim${reply.id.slice(-12)}`;
  return [
    { type: 'server_tool_use', id, name: 'web_search', input: { query: reply.query } },
    {
      type: 'web_search_tool_result',
      tool_use_id: id,
      content: [
        {
          type: 'web_search_result',
          url: RESULT_URL,
          title: 'Simulated result',
          encrypted_content: 'c2ltdWxhdGVk',
          page_age: null,
        },
      ],
    },
  ];
}

function citation(reply: MessagesReply): Block {
  return {
    type: 'web_search_result_location',
    url: RESULT_URL,
    title: 'Simulated result',
    cited_text: reply.reply.tokens[0] ?? '',
    encrypted_index: 'c2lt',
  };
}

export function messagesUsage(reply: MessagesReply): Block {
  const { usage } = reply.reply;
  const { fiveMinutes, oneHour } = reply.cache;
  return {
    input_tokens: usage.prompt_tokens - fiveMinutes - oneHour,
    cache_creation_input_tokens: fiveMinutes + oneHour,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: fiveMinutes, ephemeral_1h_input_tokens: oneHour },
    output_tokens: usage.completion_tokens,
    ...(reply.thinking ? { output_tokens_details: { thinking_tokens: reply.reply.reasoningTokens } } : {}),
    server_tool_use: { web_search_requests: reply.webSearch ? 1 : 0 },
    service_tier: 'standard',
  };
}

function contentBlocks(reply: MessagesReply): Block[] {
  const blocks: Block[] = [];
  if (reply.thinking)
    blocks.push({ type: 'thinking', thinking: thinkingText(reply), signature: signature(reply) });
  if (reply.webSearch) blocks.push(...searchBlocks(reply));
  if (reply.reply.toolCalls.length === 0) {
    const text = reply.reply.tokens.join('');
    blocks.push(
      reply.webSearch
        ? { type: 'text', text, citations: [citation(reply)] }
        : { type: 'text', text, citations: null },
    );
  }
  for (const call of reply.reply.toolCalls)
    blocks.push({
      type: 'tool_use',
      id: call.id.replace('call_', 'toolu_'),
      name: call.name,
      input: JSON.parse(call.arguments) as unknown,
    });
  return blocks;
}

export function messageBody(reply: MessagesReply): string {
  return JSON.stringify({
    id: reply.id,
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content: contentBlocks(reply),
    stop_reason: STOP[reply.reply.finishReason],
    stop_sequence: null,
    usage: messagesUsage(reply),
  });
}

/** One SSE event; `token` marks the events that carry reply tokens (for fault injection). */
export interface SimEvent {
  readonly text: string;
  readonly token: boolean;
}

export function sseEvent(type: string, data: Block, token = false): SimEvent {
  return { text: `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`, token };
}

function blockEvents(index: number, block: Block, pieces: readonly string[]): SimEvent[] {
  const start = (content: Block) => sseEvent('content_block_start', { index, content_block: content });
  const delta = (value: Block, token = false) =>
    sseEvent('content_block_delta', { index, delta: value }, token);
  const events: SimEvent[] = [];
  if (block.type === 'thinking') {
    events.push(start({ type: 'thinking', thinking: '', signature: '' }));
    events.push(delta({ type: 'thinking_delta', thinking: block.thinking }));
    events.push(delta({ type: 'signature_delta', signature: block.signature }));
  } else if (block.type === 'text') {
    events.push(start({ type: 'text', text: '' }));
    for (const item of Array.isArray(block.citations) ? block.citations : [])
      events.push(delta({ type: 'citations_delta', citation: item as Block }));
    return [...events, ...pieces.map((text) => delta({ type: 'text_delta', text }, true))];
  } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
    events.push(start({ ...block, input: {} }));
    for (const piece of argumentPieces(JSON.stringify(block.input)))
      events.push(delta({ type: 'input_json_delta', partial_json: piece }));
  } else {
    events.push(start(block));
  }
  return events;
}

export function messageEvents(reply: MessagesReply): SimEvent[] {
  const usage = messagesUsage(reply);
  const message = {
    id: reply.id,
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
  };
  const events: SimEvent[] = [
    sseEvent('message_start', { message: { ...message, usage: { ...usage, output_tokens: 1 } } }),
    sseEvent('ping', {}),
  ];
  for (const [index, block] of contentBlocks(reply).entries()) {
    // Text streams token by token, so faults can strike after a given number of tokens.
    events.push(...blockEvents(index, block, reply.reply.tokens), sseEvent('content_block_stop', { index }));
  }
  events.push(
    sseEvent('message_delta', {
      delta: { stop_reason: STOP[reply.reply.finishReason], stop_sequence: null },
      usage: { ...usage, input_tokens: null },
    }),
    sseEvent('message_stop', {}),
  );
  return events;
}
