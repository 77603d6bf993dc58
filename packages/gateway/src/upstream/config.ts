import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

/** Configuration of the upstream area (section `upstream` of the gateway config). */
export const UpstreamConfigSchema = Type.Object({}, { additionalProperties: false, default: {} });

export type UpstreamConfig = Static<typeof UpstreamConfigSchema>;

/** Config path inside this section -> environment variable. */
export const UPSTREAM_ENV: EnvMapping = {};
