/** What /docs shows for the Gemini front door: its model list and Google's error envelope. */
import { Type } from 'typebox';
import { FALLBACKS_HEADER_PARAMETER, OPTION_HEADER_PARAMETERS } from '../chat-completions/openapi.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './models.ts';
import type { GeminiMethod } from './path.ts';

/** Any of the three ways a Gemini route takes the token (app.ts declares the schemes). */
export const GEMINI_SECURITY: ReadonlyArray<Readonly<Record<string, readonly string[]>>> = [
  { bearerAuth: [] },
  { geminiApiKey: [] },
  { geminiKeyQuery: [] },
];

export const LIST_DESCRIPTION = `Gemini API \`models.list\` (what \`@google/genai\` and Gemini CLI call): every model this
account can use now, the same live list as \`GET /v1/models\` in Google's shape (\`name\` is
\`models/<id>\`, aliases listed under their own names). Paginated as Google does: \`pageSize\`
(default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}) and the \`nextPageToken\` of the previous page.
Under \`/v1\` the path is OpenAI's list too: a request carrying \`x-goog-api-key\`,
\`x-goog-api-client\` or \`?key=\` gets this shape, every other one OpenAI's.`;

export const GET_DESCRIPTION = `One model in Gemini's shape (exact version or alias, with or without
the \`models/\` prefix) if this account can use it now; 404 \`NOT_FOUND\` otherwise, 410 for a
retired version. Under \`/v1\` for Gemini clients only, as the list.`;

const GeminiModelSchema = Type.Object({
  name: Type.String({ description: '`models/<id>`', examples: ['models/gemini-2.5-flash'] }),
  baseModelId: Type.String({ description: 'The exact version the name resolves to now' }),
  version: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  inputTokenLimit: Type.Integer(),
  outputTokenLimit: Type.Integer(),
  supportedGenerationMethods: Type.Array(Type.String()),
  thinking: Type.Boolean({ description: 'Accepts thinking (an effort above none)' }),
});

export const ModelsQuerySchema = Type.Object({
  pageSize: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: `Models per page (default ${DEFAULT_PAGE_SIZE}; above ${MAX_PAGE_SIZE} is taken as ${MAX_PAGE_SIZE})`,
    }),
  ),
  pageToken: Type.Optional(Type.String({ description: 'The nextPageToken of the previous page' })),
  key: Type.Optional(
    Type.String({ description: 'The personal access token, as Gemini clients may send it' }),
  ),
});

export const KeyQuerySchema = Type.Object({
  key: Type.Optional(
    Type.String({ description: 'The personal access token, as Gemini clients may send it' }),
  ),
});

export const ModelParamsSchema = Type.Object({
  model: Type.String({
    maxLength: 256,
    examples: ['gemini-2.5-flash'],
    description: 'Exact version or alias (`models/` prefix optional)',
  }),
});

const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.Integer({ description: 'The HTTP status' }),
    message: Type.String(),
    status: Type.String({
      description: 'INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND, RESOURCE_EXHAUSTED, ...',
    }),
    details: Type.Array(
      Type.Object(
        {
          '@type': Type.String(),
          reason: Type.String({ description: "The gateway's error code (docs/gateway/errors.md)" }),
          domain: Type.String(),
        },
        { additionalProperties: true },
      ),
    ),
  }),
});

const ERROR_STATUSES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'PERMISSION_DENIED (allocation exhausted)',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  410: 'FAILED_PRECONDITION (model retired)',
  413: 'INVALID_ARGUMENT (body too large)',
  429: 'RESOURCE_EXHAUSTED (rate limited)',
  500: 'INTERNAL',
  502: 'INTERNAL (the provider failed)',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function googleErrorResponses(): Record<number, unknown> {
  return Object.fromEntries(
    Object.entries(ERROR_STATUSES).map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: ErrorEnvelope } } },
    ]),
  );
}

export const LIST_RESPONSES: Record<number, unknown> = {
  200: {
    description: 'One page of the models this account can use now',
    content: {
      'application/json': {
        schema: Type.Object({
          models: Type.Array(GeminiModelSchema),
          nextPageToken: Type.Optional(Type.String()),
        }),
      },
    },
  },
  ...googleErrorResponses(),
};

export const GET_RESPONSES: Record<number, unknown> = {
  200: { description: 'The model', content: { 'application/json': { schema: GeminiModelSchema } } },
  ...googleErrorResponses(),
};

export const CallQuerySchema = Type.Object({
  alt: Type.Optional(
    Type.String({
      description: '`sse`: stream server-sent events (streamGenerateContent); otherwise one JSON array',
      examples: ['sse'],
    }),
  ),
  key: Type.Optional(
    Type.String({ description: 'The personal access token, as Gemini clients may send it' }),
  ),
});

/** The path parameter the OpenAPI document shows for `{model}:{method}` (the route is a wildcard). */
export const CallParamsSchema = Type.Object({
  model: Type.String({
    examples: ['gemini-flash'],
    description:
      'A model name as on every route: `<base>[:<modifier>]...[@<provider>]`, e.g. `gemini-2.5-flash:high@cloud_b` (percent-encoding accepted)',
  }),
});

const MODEL_NOTE = `The model is the path's, in the gateway's grammar (modifiers and \`@provider\` before the
method: \`gemini-2.5-flash:high@cloud_b:generateContent\`). Gemini models on \`developer\` and
\`cloud_b\` get the body as sent; other models a translation. \`thinkingConfig\` counts as
\`X-Gateway-Effort\` (a header or a name modifier wins). Token: \`x-goog-api-key\`, \`?key=\` or
\`Authorization: Bearer\`. Errors in Google's envelope. The same route is served under \`/v1\`.`;

export const METHOD_DOCS: Readonly<Record<GeminiMethod, { summary: string; description: string }>> = {
  generateContent: {
    summary: 'Generate content (Gemini API)',
    description: `One GenerateContentResponse. ${MODEL_NOTE}`,
  },
  streamGenerateContent: {
    summary: 'Stream generated content (Gemini API)',
    description: `Partial GenerateContentResponses: server-sent events with \`?alt=sse\` (what the SDKs ask for), otherwise one JSON array. ${MODEL_NOTE}`,
  },
  countTokens: {
    summary: 'Count the tokens of a prompt (Gemini API)',
    description: `\`{totalTokens}\`, free: the provider's own counter (Gemini on \`developer\` and \`cloud_b\`), else the gateway's estimate; \`X-Gateway-Token-Count\` says which. ${MODEL_NOTE}`,
  },
};

const hello = [{ role: 'user', parts: [{ text: 'Say hello!' }] }];

export const GENERATE_EXAMPLES = {
  plain: { summary: 'A prompt', value: { contents: hello } },
  thinking: {
    summary: 'With a thinking budget (taken as an effort) and an output limit',
    value: {
      contents: hello,
      generationConfig: { maxOutputTokens: 256, thinkingConfig: { thinkingBudget: 1024 } },
    },
  },
} as const;

export const COUNT_EXAMPLES = { plain: { summary: 'A prompt', value: { contents: hello } } } as const;

const Response = Type.Object(
  { candidates: Type.Optional(Type.Array(Type.Unknown())) },
  { additionalProperties: true },
);

export const CALL_RESPONSES: Readonly<Record<GeminiMethod, Record<number, unknown>>> = {
  generateContent: {
    200: { description: 'A GenerateContentResponse', content: { 'application/json': { schema: Response } } },
    ...googleErrorResponses(),
  },
  streamGenerateContent: {
    200: {
      description: 'Partial GenerateContentResponses: one JSON array, or events with `?alt=sse`',
      content: {
        'application/json': { schema: Type.Array(Response) },
        'text/event-stream': {
          schema: Type.String({ description: '`data: <GenerateContentResponse>` events' }),
        },
      },
    },
    ...googleErrorResponses(),
  },
  countTokens: {
    200: {
      description: 'The tokens of the prompt',
      content: { 'application/json': { schema: Type.Object({ totalTokens: Type.Integer({ minimum: 0 }) }) } },
    },
    ...googleErrorResponses(),
  },
};

/** The X-Gateway-* headers a call takes (a count has no attempts to fall back between). */
export const GenerateHeadersSchema = Type.Object({
  ...OPTION_HEADER_PARAMETERS,
  ...FALLBACKS_HEADER_PARAMETER,
});
export const CountHeadersSchema = Type.Object(OPTION_HEADER_PARAMETERS);
