/**
 * The Responses request body. Only what the gateway itself reads is checked; every other field
 * (and any field OpenAI adds tomorrow) is kept as sent and reaches Responses-API upstreams
 * untouched. The upstream (or the translation) checks the rest in its own words.
 */
import { type Static, Type } from 'typebox';
import { FallbackModelsSchema } from '../fallback-models.ts';

const open = { additionalProperties: true } as const;
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

export const ResponsesRequestSchema = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'A model name: `<base>[:<modifier>]...[@<provider>]`, e.g. `gpt-5.4:high@cloud_c`',
    }),
    models: FallbackModelsSchema,
    // Not a union: with the kit's `coerceTypes: 'array'`, Ajv would unwrap one-item arrays while
    // trying the string branch. inputs.ts checks the shape.
    input: Type.Unknown({ description: 'A string, or the conversation as a list of input items' }),
    instructions: nullable(Type.String({ description: 'A system prompt' })),
    stream: nullable(Type.Boolean()),
    tools: Type.Optional(Type.Array(Type.Object({ type: Type.String() }, open))),
    // Unknown, as `input`: the upstream or the translation checks it; the answer echoes it.
    tool_choice: Type.Optional(Type.Unknown({ description: 'Echoed in the response; "auto" when absent' })),
    max_output_tokens: nullable(
      Type.Integer({ minimum: 1, description: 'Output limit, reasoning included' }),
    ),
    reasoning: nullable(
      Type.Object(
        {
          effort: nullable(
            Type.String({ description: 'Taken as X-Gateway-Effort when that header is absent' }),
          ),
        },
        open,
      ),
    ),
    service_tier: nullable(
      Type.String({ description: '`flex` or `default`/`auto`: taken as X-Gateway-Service-Tier when absent' }),
    ),
    previous_response_id: nullable(
      Type.String({ description: 'Not supported: send the whole conversation with `store: false`' }),
    ),
  },
  open,
);

export type ResponsesRequestBody = Static<typeof ResponsesRequestSchema>;
