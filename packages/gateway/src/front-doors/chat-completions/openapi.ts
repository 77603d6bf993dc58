/**
 * What /docs shows for POST /v1/chat/completions: request examples that work as they are
 * against the embedded default (a test executes each), the option headers as parameters, the
 * response headers, and every error status with its codes from the catalogue.
 */
import { type TSchema, Type } from 'typebox';
import { errorResponses } from '../../openapi-errors.ts';
import { FALLBACKS_HEADER, MAX_FALLBACKS } from '../../pipeline/fallbacks.ts';

const hello = [{ role: 'user', content: 'Say hello!' }];

/** Request bodies offered by "Try it out"; the first is the default. */
export const CHAT_EXAMPLES = {
  plain: {
    summary: 'A model by family alias: the gateway picks the provider',
    value: { model: 'gpt-5.4-mini', messages: hello },
  },
  modifiers: {
    summary: 'Modifiers: high reasoning effort on the flex tier',
    value: { model: 'gpt-5.4:high:flex', messages: hello, max_completion_tokens: 256 },
  },
  provider: {
    summary: 'An explicit provider with @provider (its allocation bucket pays)',
    value: { model: 'claude-sonnet:low@cloud_b', messages: hello, max_tokens: 2048 },
  },
  streaming: {
    summary: 'Streaming (Server-Sent Events) with a final usage chunk',
    value: { model: 'gemini-flash', messages: hello, stream: true, stream_options: { include_usage: true } },
  },
} as const;

const optional = (description: string, examples: readonly string[]) =>
  Type.Optional(Type.String({ description, examples: [...examples] }));

/** The routing area's option headers (a test checks they are the names it reads). */
export const OPTION_HEADERS = {
  provider: 'x-gateway-provider',
  effort: 'x-gateway-effort',
  tier: 'x-gateway-service-tier',
  compression: 'x-gateway-compression',
} as const;

/** The X-Gateway-* option headers (a modifier in the model name wins over them). */
export const OPTION_HEADER_PARAMETERS = {
  [OPTION_HEADERS.provider]: optional(
    'Provider to use when the model name has no `@provider`: `developer`, `cloud_a`, `cloud_b` or `cloud_c`. Unusable values are ignored and listed in `X-Gateway-Ignored`.',
    ['developer'],
  ),
  [OPTION_HEADERS.effort]: optional(
    'Reasoning effort when the name has no effort modifier: `none`, `minimal`, `low`, `medium`, `high`, `xhigh`, `max` (per model; `GET /v1/models` lists them).',
    ['low'],
  ),
  [OPTION_HEADERS.tier]: optional('Service tier when the name has none: `standard` or `flex`.', ['standard']),
  [OPTION_HEADERS.compression]: optional('Prompt compression: `off` (today the only level).', ['off']),
};

/** On the routes that call a model (not on token counts): the client's fallback list. */
export const FALLBACKS_HEADER_PARAMETER = {
  [FALLBACKS_HEADER]: optional(
    `Fallback model names, comma-separated, tried in order after \`model\` when it cannot serve; at most ${MAX_FALLBACKS}. A body \`models\` list wins over it (the header is then listed in \`X-Gateway-Ignored\`).`,
    ['gpt-5.4-mini, claude-haiku'],
  ),
};

/** The X-Gateway-* request headers of a model call. */
export const ChatHeadersSchema = Type.Object({ ...OPTION_HEADER_PARAMETERS, ...FALLBACKS_HEADER_PARAMETER });

const header = (description: string, example?: string): TSchema =>
  Type.String({ description, ...(example ? { examples: [example] } : {}) });

/** On every answer of the route, errors included. */
export const APPLIED_HEADERS = {
  'x-gateway-applied': header(
    'What was applied (RFC 8941 dictionary); keys decided before an error are present',
    'model="gpt-5.4-mini-2026-03-17", provider=developer, effort=none, tier=standard, compression=off',
  ),
  'x-gateway-ignored': header('Header inputs that were not used, when any', 'effort=ultra'),
  'x-request-id': header('The request id (send X-Request-Id to set it); name it when reporting a problem'),
  deprecation: header(
    'RFC 9745: the model is (or will be) deprecated since this date; only for a model with an announced end',
    '@1790726400',
  ),
  sunset: header(
    'RFC 8594: from this date the model answers 410 `model_retired`',
    'Mon, 30 Nov 2026 00:00:00 GMT',
  ),
  link: header(
    'The version to move to, as `rel="successor-version"`',
    '</v1/models/claude-sonnet-4-6>; rel="successor-version"',
  ),
};

/** On a 200 JSON answer (a stream's headers go before its cost is known: it is in its usage). */
export const COST_HEADERS = {
  'x-gateway-cost': header(
    'What the request cost in US dollars, as the ledger charges it (also `usage.cost`); JSON answers only',
    '0.000041',
  ),
};

export const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit-requests': header('Requests allowed per window', '60'),
  'x-ratelimit-remaining-requests': header('Requests left in the window', '59'),
  'x-ratelimit-reset-requests': header('Time until the request window resets', '1s'),
  'x-ratelimit-limit-tokens': header('Tokens allowed per window', '200000'),
  'x-ratelimit-remaining-tokens': header('Tokens left in the window', '199990'),
  'x-ratelimit-reset-tokens': header('Time until the token window resets', '6m0s'),
};

const Usage = Type.Object(
  {
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    total_tokens: Type.Integer(),
    cost: Type.Optional(
      Type.Number({ description: "What the request cost in US dollars: the ledger's charge" }),
    ),
  },
  { additionalProperties: true },
);

/** The completion as OpenAI sends it; fields the upstream adds are kept. */
export const ChatCompletionSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String({ description: 'The exact model version that answered' }),
    choices: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          message: Type.Object(
            { role: Type.Literal('assistant'), content: Type.Union([Type.String(), Type.Null()]) },
            { additionalProperties: true },
          ),
          finish_reason: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: true },
      ),
      { minItems: 1 },
    ),
    usage: Type.Optional(Usage),
  },
  { additionalProperties: true },
);

const COMPLETION_EXAMPLE = {
  id: 'chatcmpl-sim5d1c0e0b6b9f2a3c4d5e6f70',
  object: 'chat.completion',
  created: 1795359297,
  model: 'gpt-5.4-mini-2026-03-17',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Simulated reply to "Say hello!": gateway token stream' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 6, completion_tokens: 8, total_tokens: 14, cost: 0.000041 },
};

const STREAM_EXAMPLE = [
  'data: {"id":"chatcmpl-sim1","object":"chat.completion.chunk","created":1795359297,"model":"gemini-3.5-flash","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}',
  'data: {"id":"chatcmpl-sim1","object":"chat.completion.chunk","created":1795359297,"model":"gemini-3.5-flash","choices":[{"index":0,"delta":{"content":"Simulated"},"finish_reason":null}],"usage":null}',
  'data: {"id":"chatcmpl-sim1","object":"chat.completion.chunk","created":1795359297,"model":"gemini-3.5-flash","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}',
  'data: {"id":"chatcmpl-sim1","object":"chat.completion.chunk","created":1795359297,"model":"gemini-3.5-flash","choices":[],"usage":{"prompt_tokens":6,"completion_tokens":1,"total_tokens":7,"cost":0.000018}}',
  'data: [DONE]',
  '',
].join('\n\n');

/**
 * The responses of the route: 200 as JSON or SSE, then every catalogued error. Typed loosely on
 * purpose: they document, and must not narrow what the handler may send (upstream fields pass).
 */
export const CHAT_RESPONSES: Record<number, unknown> = {
  200: {
    description:
      'The completion (JSON), or with `stream: true` Server-Sent Events ending with `data: [DONE]`',
    headers: { ...APPLIED_HEADERS, ...RATE_LIMIT_HEADERS, ...COST_HEADERS },
    content: {
      'application/json': { schema: ChatCompletionSchema, example: COMPLETION_EXAMPLE },
      'text/event-stream': {
        schema: Type.String({ description: 'OpenAI chat.completion.chunk events' }),
        example: STREAM_EXAMPLE,
      },
    },
  },
  ...errorResponses(undefined, APPLIED_HEADERS),
};
