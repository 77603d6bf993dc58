import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

/** Configuration of the access area (section `access` of the gateway config). */
export const AccessConfigSchema = Type.Object({}, { additionalProperties: false, default: {} });

export type AccessConfig = Static<typeof AccessConfigSchema>;

/** Config path inside this section -> environment variable. */
export const ACCESS_ENV: EnvMapping = {};
