import type { Kysely } from 'kysely';
import type { EnergyDatabase } from '../db/schema.ts';
import type { ApiRecord } from '../format/representation.ts';
import { fanControlRepresentation, roofTypeRepresentation } from '../resources/reference.ts';
import { toRecord } from './records.ts';

type Db = Kysely<EnergyDatabase>;

/** The read-only reference lists, ordered as the spec says: by sort_order (then id, for ties). */
export function referenceRepository(db: Db) {
  return {
    async fanControls(): Promise<ApiRecord[]> {
      const rows = await db
        .selectFrom('fan_controls')
        .selectAll()
        .orderBy('sort_order')
        .orderBy('id')
        .execute();
      return rows.map((row) => toRecord(fanControlRepresentation, row));
    },
    async fanControl(id: number): Promise<ApiRecord | undefined> {
      const row = await db.selectFrom('fan_controls').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRecord(fanControlRepresentation, row) : undefined;
    },
    async roofTypes(): Promise<ApiRecord[]> {
      const rows = await db
        .selectFrom('roof_types')
        .selectAll()
        .orderBy('sort_order')
        .orderBy('id')
        .execute();
      return rows.map((row) => toRecord(roofTypeRepresentation, row));
    },
    async roofType(id: number): Promise<ApiRecord | undefined> {
      const row = await db.selectFrom('roof_types').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRecord(roofTypeRepresentation, row) : undefined;
    },
  };
}

export type ReferenceRepository = ReturnType<typeof referenceRepository>;
