/**
 * The Messages request bodies. Only what the gateway itself reads is checked; every other field
 * (and any field Anthropic adds tomorrow) is kept as sent and reaches Anthropic-API upstreams
 * untouched. The upstream checks the rest in its own words.
 */
import { type Static, Type } from 'typebox';
import { FallbackModelsSchema } from '../fallback-models.ts';

const open = { additionalProperties: true } as const;

const Message = Type.Object(
  {
    // Claude Code 2.1 sends `system` turns between the others (its environment and deferred-tool
    // notes, with the mid-conversation-tool-changes beta); Anthropic takes them there.
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
    // Not a union: with the kit's `coerceTypes: 'array'`, Ajv unwraps a one-block array while
    // trying the string branch. The upstream (or the translation) checks the blocks.
    content: Type.Unknown({ description: 'A string or an array of content blocks' }),
  },
  open,
);

const common = {
  model: Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'A model name: `<base>[:<modifier>]...[@<provider>]`, e.g. `claude-sonnet:high@cloud_b`',
  }),
  messages: Type.Array(Message, { minItems: 1 }),
  system: Type.Optional(Type.Unknown({ description: 'A string or text blocks (with `cache_control`)' })),
  tools: Type.Optional(
    Type.Array(Type.Object({ name: Type.String(), type: Type.Optional(Type.String()) }, open)),
  ),
  output_config: Type.Optional(
    Type.Object(
      {
        effort: Type.Optional(
          Type.String({ description: 'Taken as X-Gateway-Effort when that header is absent' }),
        ),
      },
      open,
    ),
  ),
};

export const MessagesRequestSchema = Type.Object(
  {
    ...common,
    // Not on count_tokens: a count has no attempts to fall back between.
    models: FallbackModelsSchema,
    max_tokens: Type.Integer({ minimum: 1, description: 'Output limit, thinking included (required)' }),
    stream: Type.Optional(Type.Boolean()),
  },
  open,
);

export const CountTokensRequestSchema = Type.Object(common, open);

export type MessagesRequestBody = Static<typeof MessagesRequestSchema>;
export type CountTokensRequestBody = Static<typeof CountTokensRequestSchema>;
