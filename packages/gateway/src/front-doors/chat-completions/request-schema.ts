import { type Static, Type } from 'typebox';
import { FallbackModelsSchema } from '../fallback-models.ts';

const open = { additionalProperties: true } as const;
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

const Message = Type.Object(
  {
    role: Type.String({ minLength: 1, description: '`system`, `developer`, `user`, `assistant` or `tool`' }),
    content: Type.Optional(Type.Unknown({ description: 'A string or an array of content parts' })),
  },
  open,
);

/**
 * The request body. Only what the gateway itself reads is checked; every other field (and any
 * field OpenAI adds tomorrow) is kept as sent and reaches OpenAI-compatible upstreams untouched.
 */
export const ChatRequestSchema = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'A model name: `<base>[:<modifier>]...[@<provider>]`, e.g. `gpt-5.4:high@developer`',
    }),
    models: FallbackModelsSchema,
    messages: Type.Array(Message, { minItems: 1 }),
    stream: nullable(Type.Boolean()),
    stream_options: nullable(
      Type.Object({ include_usage: nullable(Type.Boolean()) }, { ...open, description: 'Streams only' }),
    ),
    tools: Type.Optional(Type.Array(Type.Object({ type: Type.String() }, open))),
    n: nullable(
      Type.Integer({ minimum: 1, description: 'Completions to generate; at most GATEWAY_MAX_CHOICES' }),
    ),
    max_tokens: nullable(Type.Integer({ minimum: 1 })),
    max_completion_tokens: nullable(Type.Integer({ minimum: 1 })),
    reasoning_effort: nullable(
      Type.String({ description: 'Taken as X-Gateway-Effort when that header is absent' }),
    ),
    service_tier: nullable(
      Type.String({
        description: '`flex` or `default`/`standard`: taken as X-Gateway-Service-Tier when absent',
      }),
    ),
    web_search_options: Type.Optional(Type.Object({}, open)),
  },
  open,
);

export type ChatRequestBody = Static<typeof ChatRequestSchema>;
