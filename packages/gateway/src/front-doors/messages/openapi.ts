/** What /docs shows for the Messages front door: headers, examples, responses in Anthropic's envelope. */
import { Type } from 'typebox';
import { FALLBACKS_HEADER_PARAMETER, OPTION_HEADER_PARAMETERS } from '../chat-completions/openapi.ts';
import { ANTHROPIC_VERSIONS } from './inputs.ts';

export const MESSAGES_DESCRIPTION = `Anthropic Messages API (what Claude Code and the Anthropic SDKs speak). Name the model
as on /v1/chat/completions (\`<base>[:<modifier>]...[@<provider>]\`, X-Gateway-* headers too);
Claude models on \`developer\` and \`cloud_b\` get the body as sent (thinking signatures,
\`cache_control\`, server tools, \`anthropic-beta\` preserved), other upstreams a translation.
Send the token as \`Authorization: Bearer <token>\` or \`x-api-key: <token>\`. Errors come in
Anthropic's envelope (\`{"type":"error","error":{"type","message"}}\`); an overloaded provider is 529.`;

export const COUNT_DESCRIPTION = `Counts the prompt's input tokens, free of charge: from the provider's own counter where it
has one (Anthropic on \`developer\`), else the gateway's estimate (about four characters per
token). \`X-Gateway-Token-Count\` says \`upstream\` or \`estimate\`.`;

const optional = (description: string, example: string) =>
  Type.Optional(Type.String({ description, examples: [example] }));

/** The headers of count_tokens; a message also takes the fallback list (MessagesCreateHeadersSchema). */
export const MessagesHeadersSchema = Type.Object({
  ...OPTION_HEADER_PARAMETERS,
  'anthropic-version': optional(
    `API version: ${ANTHROPIC_VERSIONS.join(' or ')} (absent: 2023-06-01).`,
    '2023-06-01',
  ),
  'anthropic-beta': optional(
    'Beta features, comma-separated: passed on to Anthropic-API upstreams, otherwise listed in X-Gateway-Ignored.',
    'interleaved-thinking-2025-05-14',
  ),
});

export const MessagesCreateHeadersSchema = Type.Object({
  ...MessagesHeadersSchema.properties,
  ...FALLBACKS_HEADER_PARAMETER,
});

const hello = [{ role: 'user', content: 'Say hello!' }];

export const MESSAGES_EXAMPLES = {
  plain: {
    summary: 'A Claude model by family alias: the gateway picks the provider',
    value: { model: 'claude-sonnet', max_tokens: 1024, messages: hello },
  },
  translated: {
    summary: 'Another family, translated from and to the Messages format',
    value: { model: 'gpt-5.4-mini', max_tokens: 256, messages: hello },
  },
  streaming: {
    summary: 'Streaming (Anthropic event stream) on an explicit provider',
    value: { model: 'claude-sonnet@cloud_b', max_tokens: 256, messages: hello, stream: true },
  },
} as const;

export const COUNT_EXAMPLES = {
  counted: {
    summary: "Counted by the provider's own counter (Anthropic on developer)",
    value: { model: 'claude-sonnet@developer', messages: hello },
  },
  estimated: {
    summary: 'Estimated by the gateway (a provider without a counter)',
    value: { model: 'gemini-flash', messages: hello },
  },
} as const;

const ErrorEnvelope = Type.Object({
  type: Type.Literal('error'),
  error: Type.Object({
    type: Type.String({ description: 'invalid_request_error, authentication_error, ..., overloaded_error' }),
    message: Type.String(),
    code: Type.String({ description: "The gateway's error code (docs/gateway/errors.md)" }),
  }),
  request_id: Type.String(),
});

const ERROR_STATUSES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error (allocation exhausted)',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error (the provider failed)',
  504: 'timeout_error',
  529: 'overloaded_error (provider or gateway overloaded)',
};

function errors(): Record<number, unknown> {
  return Object.fromEntries(
    Object.entries(ERROR_STATUSES).map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: ErrorEnvelope } } },
    ]),
  );
}

export const MESSAGES_RESPONSES: Record<number, unknown> = {
  200: {
    description:
      "A Message (JSON), or with `stream: true` Anthropic's event stream (message_start ... message_stop)",
    content: {
      'application/json': {
        schema: Type.Object({ type: Type.Literal('message') }, { additionalProperties: true }),
      },
      'text/event-stream': { schema: Type.String({ description: 'Anthropic Messages events' }) },
    },
  },
  ...errors(),
};

export const COUNT_RESPONSES: Record<number, unknown> = {
  200: {
    description: 'The input tokens of the prompt',
    content: { 'application/json': { schema: Type.Object({ input_tokens: Type.Integer({ minimum: 0 }) }) } },
  },
  ...errors(),
};
