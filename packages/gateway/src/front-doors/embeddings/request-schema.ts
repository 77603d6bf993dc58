import { type Static, Type } from 'typebox';
import { FallbackModelsSchema } from '../fallback-models.ts';

/**
 * OpenAI's `POST /v1/embeddings` body. `input` is checked by the door (inputs.ts) rather than
 * by a union schema, so that a wrong shape gets one message naming what is accepted instead of
 * each branch's complaint. Unknown fields are refused, as OpenAI refuses them.
 */
export const EmbeddingsRequestSchema = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 512,
      description:
        'An embedding model: `<base>[@<provider>]`, e.g. `text-embedding-3-small@cloud_c` (`GET /v1/models` lists those with `kind: "embedding"`)',
    }),
    models: FallbackModelsSchema,
    input: Type.Unknown({
      description:
        'A string, an array of strings, an array of token ids, or an array of token-id arrays (OpenAI tokenizer ids, for the OpenAI models only); never empty',
      examples: ['The food was delicious.', ['first text', 'second text']],
    }),
    dimensions: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Shorter vectors, where the model has them (GET /v1/models lists each model's `dimensions`)",
      }),
    ),
    encoding_format: Type.Optional(
      Type.Union([Type.Literal('float'), Type.Literal('base64')], {
        description: '`float` (default): JSON numbers; `base64`: little-endian float32 bytes in base64',
      }),
    ),
    user: Type.Optional(
      Type.String({ maxLength: 512, description: 'The end user, sent to OpenAI upstreams' }),
    ),
  },
  { additionalProperties: false },
);

export type EmbeddingsRequestBody = Static<typeof EmbeddingsRequestSchema>;
