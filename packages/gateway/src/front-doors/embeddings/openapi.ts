/**
 * What /docs shows for POST /v1/embeddings: request examples that work as they are against the
 * embedded default (a test executes each), the headers, the answer and every error status.
 */
import { Type } from 'typebox';
import { errorResponses } from '../../openapi-errors.ts';
import { FALLBACKS_HEADER, MAX_FALLBACKS } from '../../pipeline/fallbacks.ts';
import {
  APPLIED_HEADERS,
  COST_HEADERS,
  OPTION_HEADER_PARAMETERS,
  OPTION_HEADERS,
  RATE_LIMIT_HEADERS,
} from '../chat-completions/openapi.ts';

export const DESCRIPTION = `OpenAI-compatible embeddings on every provider that serves embedding models
(\`GET /v1/models\` lists them with \`kind: "embedding"\` and their dimensions). Name the model as
\`<base>[@<provider>]\`, or use \`X-Gateway-Provider\`. \`input\` is a string, strings, token ids or
lists of token ids (token ids for the OpenAI models only); a batch larger than an upstream takes is
split into several upstream calls and joined in order. The answer is OpenAI's, with \`usage.cost\`
and \`X-Gateway-Cost\`: what the ledger charged for the input tokens.

Try it: press **Authorize** and paste a token, pick an example body, **Execute**.`;

/** Request bodies offered by "Try it out"; the first is the default. */
export const EMBEDDINGS_EXAMPLES = {
  text: {
    summary: 'One text; the gateway picks the provider',
    value: { model: 'text-embedding-3-small', input: 'The food was delicious.' },
  },
  batch: {
    summary: 'Several texts, shortened vectors, as base64 float32 (what the openai SDKs ask for)',
    value: {
      model: 'gemini-embedding-001@cloud_b',
      input: ['first text', 'second text'],
      dimensions: 256,
      encoding_format: 'base64',
    },
  },
  bedrock: {
    summary: 'Titan Text Embeddings V2 with 512 dimensions',
    value: { model: 'titan-embed-text-v2', input: ['a', 'b', 'c'], dimensions: 512 },
  },
} as const;

export const EmbeddingsHeadersSchema = Type.Object({
  [OPTION_HEADERS.provider]: OPTION_HEADER_PARAMETERS[OPTION_HEADERS.provider],
  [FALLBACKS_HEADER]: Type.Optional(
    Type.String({
      description: `Fallback embedding models, comma-separated, tried in order after \`model\` when it cannot serve; at most ${MAX_FALLBACKS}. A body \`models\` list wins over it.`,
      examples: ['text-embedding-3-small@cloud_c, gemini-embedding'],
    }),
  ),
});

const EmbeddingsAnswerSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(
      Type.Object({
        object: Type.Literal('embedding'),
        index: Type.Integer({ description: 'The input it embeds, from 0, in input order' }),
        embedding: Type.Union([Type.Array(Type.Number()), Type.String()], {
          description: 'JSON numbers, or (`encoding_format: "base64"`) base64 of little-endian float32',
        }),
      }),
    ),
    model: Type.String({ description: 'The exact model version that answered' }),
    usage: Type.Object({
      prompt_tokens: Type.Integer(),
      total_tokens: Type.Integer(),
      cost: Type.Number({ description: "What the request cost in US dollars: the ledger's charge" }),
    }),
  },
  { additionalProperties: false },
);

const ANSWER_EXAMPLE = {
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789] }],
  model: 'text-embedding-3-small',
  usage: { prompt_tokens: 6, total_tokens: 6, cost: 0.000001 },
};

export const EMBEDDINGS_RESPONSES: Record<number, unknown> = {
  200: {
    description: 'One vector per input, in input order',
    headers: { ...APPLIED_HEADERS, ...RATE_LIMIT_HEADERS, ...COST_HEADERS },
    content: { 'application/json': { schema: EmbeddingsAnswerSchema, example: ANSWER_EXAMPLE } },
  },
  ...errorResponses(undefined, APPLIED_HEADERS),
};
