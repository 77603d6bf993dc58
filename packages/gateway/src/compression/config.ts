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
  },
  { additionalProperties: false, default: {} },
);

export type CompressionConfig = Static<typeof CompressionConfigSchema>;

export const COMPRESSION_ENV: EnvMapping = {
  targetRatio: 'GATEWAY_COMPRESSION_TARGET_RATIO',
};
