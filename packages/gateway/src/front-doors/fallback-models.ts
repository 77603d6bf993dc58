/** The `models` body field every front door accepts: the client's fallback list (pipeline/fallbacks.ts). */
import { Type } from 'typebox';
import { MAX_FALLBACK_LENGTH, MAX_FALLBACKS } from '../pipeline/fallbacks.ts';

export const FallbackModelsSchema = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: MAX_FALLBACK_LENGTH }), {
    minItems: 1,
    maxItems: MAX_FALLBACKS,
    description: `Fallback model names, tried in order after \`model\` when it cannot serve (same grammar, e.g. \`claude-sonnet:high@cloud_b\`); at most ${MAX_FALLBACKS}. Overrides the X-Gateway-Fallbacks header.`,
    examples: [['claude-sonnet:low@cloud_b', 'gemini-flash']],
  }),
);
