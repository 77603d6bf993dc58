import type { FastifyRequest } from 'fastify';
import { energyErrors, validationFailed } from '../errors.ts';
import type { ApiRecord } from '../format/representation.ts';
import { type Coerced, coerceFields, type FieldErrors, type InputField } from '../input/fields.ts';
import { resourceParams } from '../input/params.ts';
import { parseId } from '../repositories/records.ts';

/** The numeric id in a path parameter, or a 404 (Rails: `find("abc")` is RecordNotFound). */
export function pathId(request: FastifyRequest, name: string): number {
  const params = request.params as Record<string, unknown>;
  const id = parseId(params[name]);
  if (id === undefined) throw energyErrors.create('not_found', {});
  return id;
}

export function found<T>(value: T | undefined): T {
  if (value === undefined) throw energyErrors.create('not_found', {});
  return value;
}

/** Reads and validates a resource's attributes from everything the request carries; 422 on any problem. */
export function readInput(
  request: FastifyRequest,
  fields: readonly InputField[],
  wrapper: string,
  mode: 'create' | 'update',
): Coerced['values'] {
  const { values, errors } = coerceFields(fields, resourceParams(request.query, request.body, wrapper), mode);
  throwIfInvalid(errors);
  return values;
}

export function throwIfInvalid(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/** Absolute URL of a created record, as Rails' `location:` gives it. */
export function locationOf(request: FastifyRequest, publicUrl: string | undefined, path: string): string {
  const base = publicUrl ?? `${request.protocol}://${request.host}`;
  return `${base.replace(/\/$/, '')}${path}`;
}

export function idOf(record: ApiRecord): number {
  return Number(record.id);
}
