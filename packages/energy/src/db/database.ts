import type { ServiceSpec } from '@app/db';
import { energyMigrations } from './migrations.ts';

/**
 * The energy service's database as the server and energyctl open it
 * (`openServiceDatabase(ENERGY_DATABASE, config)`): its own schema on PostgreSQL, claimed for it.
 */
export const ENERGY_DATABASE: ServiceSpec = {
  service: 'energy',
  migrations: energyMigrations,
  urlSetting: 'ENERGY_DATABASE_URL',
  schemaSetting: 'ENERGY_DATABASE_SCHEMA',
};
