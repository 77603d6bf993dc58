import type { Kysely } from 'kysely';
import type { EnergyDatabase } from '../db/schema.ts';
import type { ApiRecord, Scalar } from '../format/representation.ts';
import { operationRepresentation } from '../resources/operation.ts';
import { prepared } from './prepared.ts';
import { now, toColumns, toRecord } from './records.ts';

type Db = Kysely<EnergyDatabase>;

/**
 * Operations, reached only through a building the user owns: one query joins the owner in, so
 * another user's operation and a missing one look exactly alike (404).
 */
export function operationsRepository(db: Db) {
  const owned = prepared(
    db,
    db
      .selectFrom('operations')
      .innerJoin('buildings', 'buildings.id', 'operations.building_id')
      .selectAll('operations')
      .where('operations.id', '=', 0)
      .where('buildings.user_id', '=', 0),
    2,
  );
  const ofBuilding = prepared(
    db,
    db.selectFrom('operations').selectAll().where('building_id', '=', 0).orderBy('id'),
    1,
  );
  return {
    async find(userId: number, id: number): Promise<ApiRecord | undefined> {
      const [row] = await owned(id, userId);
      return row ? toRecord(operationRepresentation, row) : undefined;
    },
    async list(buildingId: number): Promise<ApiRecord[]> {
      return (await ofBuilding(buildingId)).map((row) => toRecord(operationRepresentation, row));
    },
    async create(buildingId: number, values: Record<string, Scalar>): Promise<ApiRecord> {
      const stamp = now();
      const row = await db
        .insertInto('operations')
        .values({ ...toColumns(values), building_id: buildingId, created_at: stamp, updated_at: stamp })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(operationRepresentation, row);
    },
    async update(id: number, values: Record<string, Scalar>): Promise<void> {
      // Like Rails, an update that names no attribute leaves the record (and updated_at) alone.
      if (Object.keys(values).length === 0) return;
      await db
        .updateTable('operations')
        .set({ ...toColumns(values), updated_at: now() })
        .where('id', '=', id)
        .execute();
    },
    async remove(id: number): Promise<void> {
      await db.deleteFrom('operations').where('id', '=', id).execute();
    },
  };
}

export type OperationsRepository = ReturnType<typeof operationsRepository>;
