import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

/** Configuration of the routing area (section `routing` of the gateway config). */
export const RoutingConfigSchema = Type.Object({}, { additionalProperties: false, default: {} });

export type RoutingConfig = Static<typeof RoutingConfigSchema>;

/** Config path inside this section -> environment variable. */
export const ROUTING_ENV: EnvMapping = {};
