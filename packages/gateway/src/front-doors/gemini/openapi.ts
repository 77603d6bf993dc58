/** What /docs shows for the Gemini front door: its model list and Google's error envelope. */
import { Type } from 'typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './models.ts';

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
  402: 'RESOURCE_EXHAUSTED (allocation exhausted)',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  410: 'NOT_FOUND (model retired)',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
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
