import type { Kysely } from 'kysely';
import type { EnergyDatabase } from '../db/schema.ts';
import type { ApiRecord, Scalar } from '../format/representation.ts';
import { buildingRepresentation } from '../resources/building.ts';
import { prepared } from './prepared.ts';
import { now, toColumns, toRecord } from './records.ts';

type Db = Kysely<EnergyDatabase>;

/** Buildings, always through their owner: another user's building is simply not found. */
export function buildingsRepository(db: Db) {
  const owner = prepared(
    db,
    db.selectFrom('buildings').select('id').where('id', '=', 0).where('user_id', '=', 0),
    2,
  );
  return {
    async list(userId: number): Promise<ApiRecord[]> {
      const rows = await db
        .selectFrom('buildings')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('id')
        .execute();
      return rows.map((row) => toRecord(buildingRepresentation, row));
    },
    async find(userId: number, id: number): Promise<ApiRecord | undefined> {
      const row = await db
        .selectFrom('buildings')
        .selectAll()
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row ? toRecord(buildingRepresentation, row) : undefined;
    },
    async owns(userId: number, id: number): Promise<boolean> {
      return (await owner(id, userId)).length > 0;
    },
    async create(userId: number, values: Record<string, Scalar>): Promise<ApiRecord> {
      const stamp = now();
      const row = await db
        .insertInto('buildings')
        .values({ name: '', ...toColumns(values), user_id: userId, created_at: stamp, updated_at: stamp })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(buildingRepresentation, row);
    },
    async update(userId: number, id: number, values: Record<string, Scalar>): Promise<void> {
      // Like Rails, an update that names no attribute leaves the record (and updated_at) alone.
      if (Object.keys(values).length === 0) return;
      await db
        .updateTable('buildings')
        .set({ ...toColumns(values), updated_at: now() })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .execute();
    },
    async remove(userId: number, id: number): Promise<boolean> {
      const result = await db
        .deleteFrom('buildings')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

export type BuildingsRepository = ReturnType<typeof buildingsRepository>;
