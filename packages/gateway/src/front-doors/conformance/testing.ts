/**
 * The front doors as the conformance test drives them, one row each: how to ask for a text or a
 * tool-call turn, which official schema (./schemas/<vendor>.json) its JSON answers, stream events
 * and error envelopes must match, and the cross-event rules a schema cannot state. Adding a door
 * (Gemini's generateContent, say) is a row here plus its vendored schema file.
 */
type Json = Record<string, unknown>;

export interface SseEvent {
  /** The `event:` name, if the stream names its events. */
  readonly name?: string;
  /** The parsed `data:` payload; `[DONE]` is not an event. */
  readonly data: Json;
}

export type Turn = 'text' | 'tool';

export interface Door {
  readonly name: string;
  /** The request path for this model, JSON or streamed (Gemini's name the model and the method). */
  path(model: string, stream: boolean): string;
  /** The schema file (vendor) its answers are checked against. */
  readonly vendor: string;
  /** Schema of the JSON answer. */
  readonly answer: string;
  /** Schema of its error envelope (HTTP errors, and mid-stream error events). */
  readonly error: string;
  /** Whether it streams at all. */
  readonly streams: boolean;
  /**
   * Whether its calls are metered: sent to the provider and counted by rate limits. count_tokens
   * is free and estimated where the provider has no counter, so a provider's 429 may not reach it.
   */
  readonly metered: boolean;
  body(model: string, turn: Turn, stream: boolean): Json;
  /** Schema of one stream event; undefined: the event is not in the document (e.g. Anthropic's `ping`). */
  eventRoot(event: SseEvent): string | undefined;
  /** Whether the answer to a tool turn did call a tool (a tool turn without one proves nothing). */
  calledTool(answer: Json): boolean;
  /** Rules across a stream's events (numbering, ids), as messages; [] when all hold. */
  streamRules(events: readonly SseEvent[]): string[];
}

const QUESTION = 'Call list_files to list the files of the src directory';
const PARAMETERS = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

/** Splits an SSE body into its events (comments and `[DONE]` left out). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split('\n\n')) {
    let name: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    const payload = data.join('\n');
    if (payload === '' || payload === '[DONE]') continue;
    events.push({ ...(name === undefined ? {} : { name }), data: JSON.parse(payload) as Json });
  }
  return events;
}

/** An event's `data.type` must be its `event:` name (the SDKs dispatch on either). */
function namesMatchTypes(events: readonly SseEvent[]): string[] {
  return events
    .filter((event) => event.name !== undefined && event.name !== event.data.type)
    .map((event) => `event ${event.name} carries type ${String(event.data.type)}`);
}

const chatCompletions: Door = {
  name: 'chat completions',
  path: () => '/v1/chat/completions',
  vendor: 'openai',
  answer: 'CreateChatCompletionResponse',
  error: 'ErrorResponse',
  streams: true,
  metered: true,
  body: (model, turn, stream) => ({
    model,
    messages: [{ role: 'user', content: QUESTION }],
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    ...(turn === 'tool'
      ? { tools: [{ type: 'function', function: { name: 'list_files', parameters: PARAMETERS } }] }
      : {}),
  }),
  // A failure after the stream started is `data: {"error": ...}`, OpenAI's mid-stream form.
  eventRoot: (event) => ('error' in event.data ? 'ErrorResponse' : 'CreateChatCompletionStreamResponse'),
  calledTool: (answer) => {
    const choices = answer.choices as Array<{ message: { tool_calls?: unknown[] } }>;
    return (choices[0]?.message.tool_calls?.length ?? 0) > 0;
  },
  streamRules: (events) => {
    const ids = new Set(events.filter((event) => !('error' in event.data)).map((event) => event.data.id));
    return ids.size > 1 ? [`chunks carry ${ids.size} different ids`] : [];
  },
};

function responseOf(event: SseEvent | undefined): Json | undefined {
  return event?.data.response as Json | undefined;
}

const responses: Door = {
  name: 'responses',
  path: () => '/v1/responses',
  vendor: 'openai',
  answer: 'Response',
  error: 'ErrorResponse',
  streams: true,
  metered: true,
  body: (model, turn, stream) => ({
    model,
    input: QUESTION,
    ...(stream ? { stream: true } : {}),
    ...(turn === 'tool'
      ? { tools: [{ type: 'function', name: 'list_files', parameters: PARAMETERS, strict: false }] }
      : {}),
  }),
  eventRoot: () => 'ResponseStreamEvent',
  calledTool: (answer) => (answer.output as Json[]).some((item) => item.type === 'function_call'),
  streamRules: (events) => {
    const problems = namesMatchTypes(events);
    events.forEach((event, index) => {
      if (event.data.sequence_number !== index)
        problems.push(
          `event ${index} (${event.name}) has sequence_number ${String(event.data.sequence_number)}`,
        );
    });
    const id = responseOf(events[0])?.id;
    for (const event of events) {
      const response = responseOf(event);
      if (response && response.id !== id)
        problems.push(
          `${event.name} is about response ${String(response.id)}, the stream about ${String(id)}`,
        );
    }
    return problems;
  },
};

function anthropicBody(model: string, turn: Turn): Json {
  return {
    model,
    messages: [{ role: 'user', content: QUESTION }],
    ...(turn === 'tool' ? { tools: [{ name: 'list_files', input_schema: PARAMETERS }] } : {}),
  };
}

const messages: Door = {
  name: 'messages',
  path: () => '/v1/messages',
  vendor: 'anthropic',
  answer: 'Message',
  error: 'ErrorResponse',
  streams: true,
  metered: true,
  body: (model, turn, stream) => ({ ...anthropicBody(model, turn), max_tokens: 256, stream }),
  eventRoot: (event) =>
    event.data.type === 'ping'
      ? undefined
      : event.data.type === 'error'
        ? 'ErrorResponse'
        : 'MessageStreamEvent',
  calledTool: (answer) => (answer.content as Json[]).some((block) => block.type === 'tool_use'),
  streamRules: (events) => {
    const problems = namesMatchTypes(events);
    const types = events.map((event) => event.data.type).filter((type) => type !== 'ping');
    if (types[0] !== 'message_start') problems.push(`the stream starts with ${String(types[0])}`);
    const last = types.at(-1);
    if (last !== 'message_stop' && last !== 'error') problems.push(`the stream ends with ${String(last)}`);
    return problems;
  },
};

const countTokens: Door = {
  name: 'count_tokens',
  path: () => '/v1/messages/count_tokens',
  vendor: 'anthropic',
  answer: 'BetaCountMessageTokensResponse',
  error: 'ErrorResponse',
  streams: false,
  metered: false,
  body: (model, turn) => anthropicBody(model, turn),
  eventRoot: () => undefined,
  calledTool: () => true,
  streamRules: () => [],
};

/**
 * The Gemini API (generateContent, streamGenerateContent with `alt=sse`) under `prefix`: the
 * simulator's `/gemini/v1beta`, and the gateway's Gemini front door (`gemini('/v1beta')` in
 * DOORS, the name given as the model, e.g. `claude-sonnet@cloud_a`).
 */
export function gemini(prefix: string): Door {
  return {
    name: 'gemini generateContent',
    path: (model, stream) =>
      `${prefix}/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    vendor: 'gemini',
    answer: 'GenerateContentResponse',
    error: 'ErrorResponse',
    streams: true,
    metered: true,
    body: (_model, turn) => ({
      contents: [{ role: 'user', parts: [{ text: QUESTION }] }],
      ...(turn === 'tool'
        ? { tools: [{ functionDeclarations: [{ name: 'list_files', parameters: PARAMETERS }] }] }
        : {}),
    }),
    // Each chunk of a stream is a GenerateContentResponse; a failure is Google's error envelope.
    eventRoot: (event) => ('error' in event.data ? 'ErrorResponse' : 'GenerateContentResponse'),
    calledTool: (answer) => {
      const candidates = answer.candidates as Array<{ content?: { parts?: Json[] } }> | undefined;
      return (candidates?.[0]?.content?.parts ?? []).some((part) => 'functionCall' in part);
    },
    streamRules: () => [],
  };
}

export const DOORS: readonly Door[] = [chatCompletions, responses, messages, countTokens, gemini('/v1beta')];

/** One model per provider family answering every door, translated or passed through. */
export const FAMILIES = [
  { family: 'OpenAI (developer)', model: 'gpt-5.4-mini@developer' },
  { family: 'Azure OpenAI (cloud_c)', model: 'gpt-5.4-mini@cloud_c' },
  { family: 'Anthropic (developer)', model: 'claude-sonnet@developer' },
  { family: 'Bedrock Converse (cloud_a)', model: 'claude-sonnet@cloud_a' },
  { family: 'Vertex Claude (cloud_b)', model: 'claude-sonnet@cloud_b' },
  { family: 'Gemini (developer)', model: 'gemini-flash@developer' },
  { family: 'Vertex Gemini (cloud_b)', model: 'gemini-flash@cloud_b' },
] as const;

/** A body every door refuses as invalid (400) before anything is sent upstream. */
export function invalidBody(door: Door): Json {
  if (door.vendor === 'openai')
    return door.name === 'chat completions'
      ? { model: 'gpt-5.4-mini', messages: 'hi' }
      : { model: 'gpt-5.4-mini', input: 42 };
  return { model: 'claude-sonnet', max_tokens: 'many', messages: 'hi' };
}
