import type { Scalar } from '../format/representation.ts';
import type { Params } from './params.ts';
import { type Cast, castBoolean, castFloat, castInteger, castString, castTime } from './scalars.ts';

export type InputKind = 'string' | 'float' | 'integer' | 'boolean' | 'time';

/** One writable attribute and every parameter name that sets it. */
export interface InputField {
  /** The attribute (column and response) name; validation errors are keyed by it. */
  readonly attribute: string;
  /** Accepted parameter names, first wins when a request sends more than one. */
  readonly names: readonly string[];
  readonly kind: InputKind;
  /** Present and not blank on create; not blank when given on update. */
  readonly required?: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly maxLength?: number;
}

/** `{"field": ["message", ...]}`: the body of a 422. */
export type FieldErrors = Record<string, string[]>;

export interface Coerced {
  readonly values: Record<string, Scalar>;
  readonly errors: FieldErrors;
}

const DEFAULT_MAX_LENGTH = 255;

function cast(field: InputField, value: unknown): Cast<Scalar> {
  switch (field.kind) {
    case 'string':
      return castString(value, field.maxLength ?? DEFAULT_MAX_LENGTH);
    case 'float':
      return castFloat(value);
    case 'integer':
      return castInteger(value);
    case 'boolean':
      return castBoolean(value);
    case 'time':
      return castTime(value);
  }
}

function rangeProblem(field: InputField, value: Scalar): string | undefined {
  if (typeof value !== 'number') return undefined;
  if (field.min !== undefined && value < field.min) return `must be greater than or equal to ${field.min}`;
  if (field.max !== undefined && value > field.max) return `must be less than or equal to ${field.max}`;
  return undefined;
}

function isBlankValue(value: Scalar): boolean {
  return value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * Reads the writable attributes out of merged parameters. Only attributes the request names
 * are returned (an update changes just those); unknown parameters are ignored, as Rails'
 * strong parameters do. Every problem is collected, so the client sees them all at once.
 */
export function coerceFields(
  fields: readonly InputField[],
  params: Params,
  mode: 'create' | 'update',
): Coerced {
  const values: Record<string, Scalar> = {};
  const errors: FieldErrors = {};
  const add = (attribute: string, message: string) => {
    errors[attribute] = [...(errors[attribute] ?? []), message];
  };
  for (const field of fields) {
    const name = field.names.find((candidate) => Object.hasOwn(params, candidate));
    if (name === undefined) {
      if (mode === 'create' && field.required) add(field.attribute, "can't be blank");
      continue;
    }
    const result = cast(field, params[name]);
    if (!result.ok) {
      add(field.attribute, result.message);
      continue;
    }
    if (field.required && isBlankValue(result.value)) {
      add(field.attribute, "can't be blank");
      continue;
    }
    const problem = rangeProblem(field, result.value);
    if (problem) add(field.attribute, problem);
    else values[field.attribute] = result.value;
  }
  return { values, errors };
}

/** Rails' full messages for the XML error list: "Weekday open time is not a valid time". */
export function fullMessages(errors: FieldErrors): string[] {
  return Object.entries(errors).flatMap(([attribute, messages]) => {
    const human = attribute.replace(/_id$/, '').replaceAll('_', ' ');
    const label = human.charAt(0).toUpperCase() + human.slice(1);
    return messages.map((message) => `${label} ${message}`);
  });
}
