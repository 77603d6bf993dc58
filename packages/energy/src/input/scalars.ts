/**
 * Casting of one parameter value, whatever transport it came by: JSON gives numbers, booleans
 * and null; XML (after Rails' typecasts) the same or strings; forms and query strings only
 * strings. A value that cannot be read is an error message, never a silent null or 0.
 */
export type Cast<T> =
  { readonly ok: true; readonly value: T | null } | { readonly ok: false; readonly message: string };

const ok = <T>(value: T | null): Cast<T> => ({ ok: true, value });
const fail = <T>(message: string): Cast<T> => ({ ok: false, message });

/** Rails casts a blank form field to nil for numbers, booleans and times. */
function isBlank(value: unknown): boolean {
  return value === null || (typeof value === 'string' && value.trim() === '');
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INT32 = 2 ** 31;

export function castFloat(value: unknown): Cast<number> {
  if (isBlank(value)) return ok(null);
  const number = typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) return fail('is not a number');
  return ok(number);
}

export function castInteger(value: unknown): Cast<number> {
  const cast = castFloat(value);
  if (!cast.ok || cast.value === null) return cast;
  if (!Number.isInteger(cast.value)) return fail('must be an integer');
  if (cast.value <= -INT32 || cast.value >= INT32) return fail('is out of range');
  return cast;
}

const TRUE_FORMS: ReadonlySet<unknown> = new Set([true, 1, 't', 'true', '1']);
const FALSE_FORMS: ReadonlySet<unknown> = new Set([false, 0, 'f', 'false', '0']);

/** Decisions: true/false, "t"/"f", "true"/"false", "1"/"0", 1/0 (strings case-insensitively). */
export function castBoolean(value: unknown): Cast<boolean> {
  if (isBlank(value)) return ok(null);
  const form = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (TRUE_FORMS.has(form)) return ok(true);
  if (FALSE_FORMS.has(form)) return ok(false);
  return fail('must be true or false');
}

const TWELVE_HOUR = /^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s*m\.?$/i;
const TWENTY_FOUR_HOUR = /^(\d{1,2}):(\d{2})$/;
const HHMM_NUMBER = /^\d{1,4}$/;
const TIME_MESSAGE = 'is not a valid time (use HHMM such as 0800, 20:00 or 8:00 am)';

function hhmm(hour: number, minute: number): Cast<string> {
  if (hour > 23 || minute > 59) return fail(TIME_MESSAGE);
  return ok(`${String(hour).padStart(2, '0')}${String(minute).padStart(2, '0')}`);
}

/**
 * Decisions: "8:00 am", "8am", "8:00 p.m.", "20:00", "0800", 800 and 2100 are all the same
 * four-digit HHMM. Numbers (and all-digit strings) are read as HHMM numbers, as the spec's own
 * example body sends them: 800 is 08:00, 30 is 00:30.
 */
export function castTime(value: unknown): Cast<string> {
  if (isBlank(value)) return ok(null);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0) return fail(TIME_MESSAGE);
    return hhmm(Math.floor(value / 100), value % 100);
  }
  if (typeof value !== 'string') return fail(TIME_MESSAGE);
  const textValue = value.trim();
  if (HHMM_NUMBER.test(textValue)) return castTime(Number(textValue));
  const twelve = TWELVE_HOUR.exec(textValue);
  if (twelve) {
    const hour = Number(twelve[1]);
    const minute = Number(twelve[2] ?? '0');
    if (hour < 1 || hour > 12) return fail(TIME_MESSAGE);
    const pm = twelve[3]?.toLowerCase() === 'p';
    return hhmm((hour % 12) + (pm ? 12 : 0), minute);
  }
  const twentyFour = TWENTY_FOUR_HOUR.exec(textValue);
  if (twentyFour) return hhmm(Number(twentyFour[1]), Number(twentyFour[2]));
  return fail(TIME_MESSAGE);
}

// Control characters other than tab and newlines cannot be written in XML 1.0.
// eslint-disable-next-line no-control-regex -- this is the check for them
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/** Strings, and numbers written as strings (an XML `type="integer"` name stays usable). */
export function castString(value: unknown, maxLength: number): Cast<string> {
  if (value === null) return ok(null);
  const textValue = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof textValue !== 'string') return fail('must be a string');
  if (CONTROL.test(textValue)) return fail('contains characters that are not allowed');
  if (textValue.length > maxLength) return fail(`is too long (maximum is ${maxLength} characters)`);
  return ok(textValue);
}
