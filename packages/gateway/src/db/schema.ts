/** Kysely table types of the gateway. */
// biome-ignore lint/complexity/noBannedTypes: filled in by the migrations that create tables
export type GatewayDatabase = {};
