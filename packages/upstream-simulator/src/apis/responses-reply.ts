/**
 * The simulator's deterministic reply (reply.ts) in OpenAI Responses form: the request's input
 * items are read as the Chat-shaped SimRequest that buildReply understands (a
 * `function_call_output` is a `tool` turn, so the reply answers it, and the scripted tool turn
 * works as for the other APIs), and the reply comes back as a `response` object or as the
 * Responses event stream, with a reasoning item when effort was spent.
 */
import { createHash } from 'node:crypto';
import { argumentPieces } from '../chunks.ts';
import { buildReply, contentText, type Reply, type SimRequest } from '../reply.ts';
import type { ToolTurn } from '../tool-turn.ts';
import type { SimEvent } from './anthropic-reply.ts';

type Body = Readonly<Record<string, unknown>>;
type Item = Record<string, unknown>;

function list(value: unknown): Body[] {
  return Array.isArray(value)
    ? value.filter((item): item is Body => typeof item === 'object' && item !== null)
    : [];
}

function object(value: unknown): Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : {};
}

function messages(body: Body): SimRequest['messages'] {
  const out: Array<{ role: unknown; content: unknown }> = [];
  if (typeof body.instructions === 'string') out.push({ role: 'system', content: body.instructions });
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : list(body.input);
  for (const item of input) {
    const type = item.type ?? 'message';
    if (type === 'message') {
      const role = item.role === 'developer' ? 'system' : item.role;
      out.push({ role, content: contentText(item.content) });
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      out.push({ role: 'assistant', content: '' });
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      out.push({ role: 'tool', content: contentText(item.output) });
    }
  }
  return out;
}

export function simRequest(model: string, body: Body): SimRequest {
  const choice = body.tool_choice;
  const forced = object(choice);
  return {
    model,
    messages: messages(body),
    tools: list(body.tools)
      .filter((tool) => tool.type === 'function')
      .map((tool) => ({ function: { name: tool.name, parameters: tool.parameters } })),
    tool_choice:
      choice === 'none' || choice === 'required'
        ? choice
        : forced.type === 'function'
          ? { type: 'function', function: { name: forced.name } }
          : undefined,
    parallel_tool_calls: body.parallel_tool_calls,
    max_completion_tokens: body.max_output_tokens,
    reasoning_effort: object(body.reasoning).effort,
  };
}

export interface ResponsesReply {
  readonly reply: Reply;
  readonly id: string;
  readonly model: string;
  readonly serviceTier: string;
  /** `reasoning.summary` was asked for: the reasoning item carries a summary. */
  readonly summary: boolean;
  /** `include: ["reasoning.encrypted_content"]`: the reasoning item carries it. */
  readonly encrypted: boolean;
  readonly createdAt: number;
  /** What OpenAI's response object echoes from the request (its schema requires each). */
  readonly echo: Item;
}

/** The request fields a response object repeats, with OpenAI's defaults when absent. */
function echoed(body: Body): Item {
  const number = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);
  return {
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    metadata: object(body.metadata),
    temperature: number(body.temperature, 1),
    top_p: number(body.top_p, 1),
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
  };
}

export function responsesReply(
  model: string,
  body: Body,
  replyTokens: number,
  toolTurn?: ToolTurn,
): ResponsesReply {
  const reply = buildReply(simRequest(model, body), replyTokens, toolTurn);
  const summary = object(body.reasoning).summary;
  return {
    reply,
    id: `resp_sim${reply.id.slice('chatcmpl-sim'.length)}`,
    model,
    serviceTier: body.service_tier === 'flex' ? 'flex' : 'default',
    summary: typeof summary === 'string' && summary !== 'none',
    encrypted: Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content'),
    createdAt: Math.floor(Date.now() / 1000),
    echo: echoed(body),
  };
}

export function responsesUsage(reply: Reply): Item {
  return {
    input_tokens: reply.usage.prompt_tokens,
    input_tokens_details: { cached_tokens: reply.usage.prompt_tokens_details.cached_tokens },
    output_tokens: reply.usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: reply.reasoningTokens },
    total_tokens: reply.usage.total_tokens,
  };
}

function suffix(reply: ResponsesReply): string {
  return reply.id.slice('resp_sim'.length);
}

function reasoningItem(reply: ResponsesReply): Item {
  const text = 'Simulated reasoning about the request.';
  return {
    id: `rs_sim${suffix(reply)}`,
    type: 'reasoning',
    summary: reply.summary ? [{ type: 'summary_text', text }] : [],
    ...(reply.encrypted
      ? { encrypted_content: createHash('sha256').update(`reasoning:${reply.id}`).digest('base64') }
      : {}),
  };
}

function outputItems(reply: ResponsesReply): Item[] {
  const items: Item[] = [];
  if (reply.reply.reasoningTokens > 0) items.push(reasoningItem(reply));
  if (reply.reply.toolCalls.length === 0 && reply.reply.tokens.length > 0)
    items.push({
      id: `msg_sim${suffix(reply)}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.reply.tokens.join(''), annotations: [], logprobs: [] }],
    });
  for (const [index, call] of reply.reply.toolCalls.entries())
    items.push({
      id: `fc_sim${suffix(reply)}${index}`,
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  return items;
}

function responseObject(reply: ResponsesReply, status: string, output: Item[], usage: boolean): Item {
  const incomplete = status === 'incomplete';
  return {
    id: reply.id,
    object: 'response',
    created_at: reply.createdAt,
    status,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    model: reply.model,
    output,
    parallel_tool_calls: true,
    service_tier: reply.serviceTier,
    store: false,
    usage: usage ? responsesUsage(reply.reply) : null,
    ...reply.echo,
  };
}

function finalStatus(reply: ResponsesReply): string {
  return reply.reply.finishReason === 'length' ? 'incomplete' : 'completed';
}

export function responseBody(reply: ResponsesReply): string {
  return JSON.stringify(responseObject(reply, finalStatus(reply), outputItems(reply), true));
}

/** The event stream; `token` marks the events that carry reply tokens (for fault injection). */
export function responseEvents(reply: ResponsesReply): SimEvent[] {
  let sequence = 0;
  const event = (type: string, data: Item, token = false): SimEvent => ({
    text: `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    token,
  });
  const events = [
    event('response.created', { response: responseObject(reply, 'in_progress', [], false) }),
    event('response.in_progress', { response: responseObject(reply, 'in_progress', [], false) }),
  ];
  const items = outputItems(reply);
  for (const [index, item] of items.entries()) events.push(...itemEvents(event, index, item, reply));
  const status = finalStatus(reply);
  events.push(event(`response.${status}`, { response: responseObject(reply, status, items, true) }));
  return events;
}

type Emit = (type: string, data: Item, token?: boolean) => SimEvent;

function itemEvents(event: Emit, index: number, item: Item, reply: ResponsesReply): SimEvent[] {
  const at = { item_id: item.id, output_index: index };
  const events: SimEvent[] = [];
  if (item.type === 'message') {
    const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    events.push(
      event('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', content: [] },
      }),
    );
    events.push(event('response.content_part.added', { ...at, content_index: 0, part }));
    for (const delta of reply.reply.tokens)
      events.push(
        event('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] }, true),
      );
    const text = reply.reply.tokens.join('');
    events.push(event('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] }));
    events.push(event('response.content_part.done', { ...at, content_index: 0, part: { ...part, text } }));
  } else if (item.type === 'reasoning') {
    events.push(event('response.output_item.added', { output_index: index, item: { ...item, summary: [] } }));
    for (const [summaryIndex, part] of list(item.summary).entries()) {
      const base = { ...at, summary_index: summaryIndex };
      events.push(event('response.reasoning_summary_part.added', { ...base, part: { ...part, text: '' } }));
      events.push(event('response.reasoning_summary_text.delta', { ...base, delta: part.text }));
      events.push(event('response.reasoning_summary_text.done', { ...base, text: part.text }));
      events.push(event('response.reasoning_summary_part.done', { ...base, part }));
    }
  } else {
    events.push(
      event('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', arguments: '' },
      }),
    );
    const args = String(item.arguments);
    for (const delta of argumentPieces(args))
      events.push(event('response.function_call_arguments.delta', { ...at, delta }));
    events.push(event('response.function_call_arguments.done', { ...at, name: item.name, arguments: args }));
  }
  events.push(event('response.output_item.done', { output_index: index, item }));
  return events;
}
