import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

/** Configuration of prompt compression (section `compression` of the gateway config). */
export const CompressionConfigSchema = Type.Object(
  {
    targetRatio: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1,
        expected: 'a number above 0 and at most 1',
        description:
          '`compressed` cuts the prompt to at most this share of its tokens (and always to the context window); unset: the context window minus the requested output only.',
      }),
    ),
    workBudget: Type.Integer({
      minimum: 1_000,
      default: 2_000_000,
      description:
        "Work one request's compression may take: characters of text, times 3 for Anthropic's tokenizer; past it the prompt is forwarded as sent (X-Gateway-Compression: fallback=budget)",
    }),
    deadlineMs: Type.Integer({
      minimum: 1,
      default: 1_000,
      description:
        'Time compression of one request may take, checked between its stages; past it the prompt is forwarded as sent (fallback=deadline)',
    }),
  },
  { additionalProperties: false, default: {} },
);

export type CompressionConfig = Static<typeof CompressionConfigSchema>;

export const COMPRESSION_ENV: EnvMapping = {
  targetRatio: 'GATEWAY_COMPRESSION_TARGET_RATIO',
  workBudget: 'GATEWAY_COMPRESSION_WORK_BUDGET',
  deadlineMs: 'GATEWAY_COMPRESSION_DEADLINE_MS',
};
