import type { ServiceSpec } from '@app/db';
import { gatewayMigrations } from './migrations.ts';

/**
 * The gateway's database as the server, gatewayctl and the demo seed open it
 * (`openServiceDatabase(GATEWAY_DATABASE, config)`): its own schema on PostgreSQL, claimed for it.
 */
export const GATEWAY_DATABASE: ServiceSpec = {
  service: 'gateway',
  migrations: gatewayMigrations,
  urlSetting: 'GATEWAY_DATABASE_URL',
  schemaSetting: 'GATEWAY_DATABASE_SCHEMA',
};
