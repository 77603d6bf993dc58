import type { Migration } from 'kysely';

/** Every schema change of the gateway, in order. Never edit one that has shipped. */
export const gatewayMigrations: Record<string, Migration> = {};
