import type { Migration } from 'kysely';

/** Every schema change of the energy service, in order. Never edit one that has shipped. */
export const energyMigrations: Record<string, Migration> = {};
