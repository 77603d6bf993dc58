import { dictionary } from '@app/http-kit';

/** Request parameters after merging, as Rails' `params` would hold them. */
export type Params = Readonly<Record<string, unknown>>;

const BRACKETED = /^([A-Za-z_][A-Za-z0-9_]*)\[([A-Za-z_][A-Za-z0-9_-]*)\]$/;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Form and query keys written `operation[name]` become `{ operation: { name } }`, as in Rails.
 * Every object built from input names has no prototype, so no name can reach Object.prototype
 * (the kit refuses `__proto__` and friends before this runs; this holds even if it did not).
 */
function nestBrackets(source: Record<string, unknown>): Record<string, unknown> {
  const out = dictionary();
  for (const [key, value] of Object.entries(source)) {
    const match = BRACKETED.exec(key);
    if (!match?.[1] || !match[2]) {
      out[key] = value;
      continue;
    }
    const existing = out[match[1]];
    const nested =
      isPlainObject(existing) && Object.getPrototypeOf(existing) === null ? existing : dictionary();
    nested[match[2]] = Array.isArray(value) ? value[0] : value;
    out[match[1]] = nested;
  }
  return out;
}

/**
 * The resource's parameters: flat ones from the query string and body, overlaid by the ones
 * wrapped in `<wrapper>` (`{"operation": {...}}`, `operation[name]=`, `<operation>`). Body
 * wins over query, wrapped over flat, as Rails' params and wrap_parameters merge them.
 */
export function resourceParams(query: unknown, body: unknown, wrapper: string): Params {
  const sources = [query, body].filter(isPlainObject).map(nestBrackets);
  const flat = dictionary();
  const wrapped = dictionary();
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) {
      if (key === wrapper && isPlainObject(value)) Object.assign(wrapped, value);
      else flat[key] = Array.isArray(value) && typeof value[0] !== 'object' ? value[0] : value;
    }
  }
  return Object.assign(flat, wrapped);
}
