import type { ApiRecord, Representation, Scalar } from '../format/representation.ts';

/** A row as the database returns it: booleans are integers 0/1 on both engines. */
export type Row = Readonly<Record<string, unknown>>;

/** Database row -> API record: only the representation's fields, booleans made booleans. */
export function toRecord(representation: Representation, row: Row): ApiRecord {
  const record: Record<string, Scalar> = {};
  for (const field of representation.fields) {
    const value = row[field.name];
    if (value === null || value === undefined) record[field.name] = null;
    else if (field.type === 'boolean') record[field.name] = value === 1 || value === true;
    else record[field.name] = value as Scalar;
  }
  return record;
}

/** API values -> columns: booleans stored as 0/1 (the project's portability rule). */
export function toColumns(values: Readonly<Record<string, Scalar>>): Record<string, string | number | null> {
  const columns: Record<string, string | number | null> = {};
  for (const [name, value] of Object.entries(values)) {
    columns[name] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  }
  return columns;
}

export function now(): string {
  return new Date().toISOString();
}

/** Ids in URLs: digits only and within the integer column's range, anything else is not found. */
export function parseId(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw)) return undefined;
  const id = Number(raw);
  return id >= 1 && id <= 2 ** 31 - 1 ? id : undefined;
}
