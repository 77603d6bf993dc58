/**
 * The generateContent and countTokens bodies. Only what the gateway itself reads is checked;
 * every other field is kept as sent and reaches Gemini-API upstreams untouched (the codec
 * refuses, for other upstreams, what they cannot express).
 */
import { type Static, Type } from 'typebox';

const open = { additionalProperties: true } as const;

// Not a union of part shapes: Google adds part kinds; the codec checks them.
const Content = Type.Object({ role: Type.Optional(Type.String()), parts: Type.Array(Type.Unknown()) }, open);

const Tool = Type.Object({}, open);

export const GenerateContentSchema = Type.Object(
  {
    contents: Type.Array(Content, { minItems: 1 }),
    systemInstruction: Type.Optional(Type.Unknown({ description: 'A Content of text parts' })),
    tools: Type.Optional(Type.Array(Tool)),
    generationConfig: Type.Optional(
      Type.Object(
        {
          maxOutputTokens: Type.Optional(Type.Integer({ minimum: 1 })),
          thinkingConfig: Type.Optional(
            Type.Object({}, { ...open, description: 'Taken as X-Gateway-Effort when that header is absent' }),
          ),
        },
        open,
      ),
    ),
  },
  open,
);

export const CountTokensSchema = Type.Object(
  {
    contents: Type.Optional(Type.Array(Content)),
    generateContentRequest: Type.Optional(Type.Object({}, open)),
  },
  open,
);

export type GenerateContentBody = Static<typeof GenerateContentSchema>;
export type CountTokensBody = Static<typeof CountTokensSchema>;
