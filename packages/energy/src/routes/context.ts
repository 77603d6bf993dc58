import type { Kysely } from 'kysely';
import { tokenCache } from '../auth/token-cache.ts';
import type { EnergyConfig } from '../config.ts';
import type { EnergyDatabase } from '../db/schema.ts';
import { buildingsRepository } from '../repositories/buildings.ts';
import { elevatorsRepository } from '../repositories/elevators.ts';
import { operationsRepository } from '../repositories/operations.ts';
import { referenceRepository } from '../repositories/reference.ts';
import { usersRepository } from '../repositories/users.ts';

/** What every route module receives: the config and the repositories over one database. */
export interface RouteContext {
  readonly config: EnergyConfig;
  readonly db: Kysely<EnergyDatabase>;
  readonly users: ReturnType<typeof usersRepository>;
  readonly buildings: ReturnType<typeof buildingsRepository>;
  readonly elevators: ReturnType<typeof elevatorsRepository>;
  readonly operations: ReturnType<typeof operationsRepository>;
  readonly reference: ReturnType<typeof referenceRepository>;
}

export function routeContext(config: EnergyConfig, db: Kysely<EnergyDatabase>): RouteContext {
  return {
    config,
    db,
    users: usersRepository(db, tokenCache(config.tokenCacheTtlMs)),
    buildings: buildingsRepository(db),
    elevators: elevatorsRepository(db),
    operations: operationsRepository(db),
    reference: referenceRepository(db),
  };
}
