/** Kysely table types of the energy asset service. */
// biome-ignore lint/complexity/noBannedTypes: filled in by the migrations that create tables
export type EnergyDatabase = {};
