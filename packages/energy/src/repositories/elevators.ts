import type { Kysely } from 'kysely';
import type { EnergyDatabase } from '../db/schema.ts';
import type { ApiRecord, Scalar } from '../format/representation.ts';
import { elevatorRepresentation } from '../resources/elevator.ts';
import { now, toColumns, toRecord } from './records.ts';

type Db = Kysely<EnergyDatabase>;

/** Elevators, reached only through a building the user owns. */
export function elevatorsRepository(db: Db) {
  const owned = (userId: number, id: number) =>
    db
      .selectFrom('elevators')
      .innerJoin('buildings', 'buildings.id', 'elevators.building_id')
      .selectAll('elevators')
      .where('elevators.id', '=', id)
      .where('buildings.user_id', '=', userId);
  return {
    async list(buildingId: number): Promise<ApiRecord[]> {
      const rows = await db
        .selectFrom('elevators')
        .selectAll()
        .where('building_id', '=', buildingId)
        .orderBy('id')
        .execute();
      return rows.map((row) => toRecord(elevatorRepresentation, row));
    },
    async find(userId: number, id: number): Promise<ApiRecord | undefined> {
      const row = await owned(userId, id).executeTakeFirst();
      return row ? toRecord(elevatorRepresentation, row) : undefined;
    },
    async belongsTo(buildingId: number, id: number): Promise<boolean> {
      const row = await db
        .selectFrom('elevators')
        .select('id')
        .where('id', '=', id)
        .where('building_id', '=', buildingId)
        .executeTakeFirst();
      return row !== undefined;
    },
    async create(buildingId: number, values: Record<string, Scalar>): Promise<ApiRecord> {
      const stamp = now();
      const row = await db
        .insertInto('elevators')
        .values({
          name: '',
          ...toColumns(values),
          building_id: buildingId,
          created_at: stamp,
          updated_at: stamp,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(elevatorRepresentation, row);
    },
    async update(id: number, values: Record<string, Scalar>): Promise<void> {
      // Like Rails, an update that names no attribute leaves the record (and updated_at) alone.
      if (Object.keys(values).length === 0) return;
      await db
        .updateTable('elevators')
        .set({ ...toColumns(values), updated_at: now() })
        .where('id', '=', id)
        .execute();
    },
    async remove(id: number): Promise<void> {
      await db.deleteFrom('elevators').where('id', '=', id).execute();
    },
  };
}

export type ElevatorsRepository = ReturnType<typeof elevatorsRepository>;
