/**
 * What /docs shows for POST /v1/responses: request examples that work as they are against the
 * embedded default (a test executes each), the response, the stream, and every error status.
 */
import { Type } from 'typebox';
import { errorResponses } from '../../openapi-errors.ts';
import { APPLIED_HEADERS, COST_HEADERS, RATE_LIMIT_HEADERS } from '../chat-completions/openapi.ts';

export const RESPONSES_DESCRIPTION = `The OpenAI Responses API (what Codex CLI and \`openai.responses\` call), on the same
pipeline as chat completions: model names with modifiers and \`@provider\`, the X-Gateway-* headers
(\`reasoning.effort\` and \`service_tier\` in the body count as header inputs), budgets, rate limits.
\`gpt\` models go to OpenAI (\`developer\`) and Azure (\`cloud_c\`) as sent; other families are
translated. With \`stream: true\` the answer is the Responses event stream, ending with
\`response.completed\`. The gateway stores no responses: send the whole conversation in \`input\`
(\`store: false\`); \`previous_response_id\` is a 400. Errors use OpenAI's envelope.

Try it: press **Authorize** and paste a token, pick an example body, **Execute**.`;

const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Request bodies offered by "Try it out"; the first is the default. */
export const RESPONSES_EXAMPLES = {
  plain: {
    summary: 'A string input: the gateway picks the provider',
    value: { model: 'gpt-5.4-mini', input: 'Say hello!' },
  },
  codex: {
    summary: 'As Codex CLI sends it: items, store false, reasoning summary, streamed',
    value: {
      model: 'gpt-5.4@cloud_c',
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low', summary: 'auto' },
      input: [
        {
          type: 'message',
          role: 'developer',
          content: [{ type: 'input_text', text: 'You are a coding agent.' }],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello!' }] },
      ],
    },
  },
  tools: {
    summary: 'A function tool on a translated family (Claude on Vertex)',
    value: {
      model: 'claude-sonnet@cloud_b',
      input: 'Weather in Paris?',
      tools: [weather],
      max_output_tokens: 1024,
    },
  },
} as const;

const ResponseSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('response'),
    status: Type.String({ description: '`completed`, or `incomplete` (see `incomplete_details`)' }),
    model: Type.String({ description: 'The exact model version that answered' }),
    output: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    usage: Type.Union([
      Type.Object(
        { input_tokens: Type.Integer(), output_tokens: Type.Integer(), total_tokens: Type.Integer() },
        { additionalProperties: true },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: true },
);

const RESPONSE_EXAMPLE = {
  id: 'resp_sim5d1c0e0b6b9f2a3c4d5e6f70',
  object: 'response',
  created_at: 1795359297,
  status: 'completed',
  model: 'gpt-5.4-mini-2026-03-17',
  output: [
    {
      id: 'msg_sim5d1c0e0b6b9f2a3c4d5e6f70',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Simulated reply to "Say hello!": gateway', annotations: [] }],
    },
  ],
  usage: {
    input_tokens: 6,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: 2,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 8,
  },
};

const STREAM_EXAMPLE = [
  'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}',
  'event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Simulated"}',
  'event: response.output_item.done\ndata: {"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Simulated","annotations":[]}]}}',
  'event: response.completed\ndata: {"type":"response.completed","sequence_number":8,"response":{"id":"resp_1","object":"response","status":"completed","output":[],"usage":{"input_tokens":6,"output_tokens":1,"total_tokens":7}}}',
  '',
].join('\n\n');

export const RESPONSES_RESPONSES: Record<number, unknown> = {
  200: {
    description: 'The response (JSON), or with `stream: true` the Responses event stream',
    headers: { ...APPLIED_HEADERS, ...RATE_LIMIT_HEADERS, ...COST_HEADERS },
    content: {
      'application/json': { schema: ResponseSchema, example: RESPONSE_EXAMPLE },
      'text/event-stream': {
        schema: Type.String({ description: 'Responses stream events, ending with response.completed' }),
        example: STREAM_EXAMPLE,
      },
    },
  },
  ...errorResponses(undefined, APPLIED_HEADERS),
};
