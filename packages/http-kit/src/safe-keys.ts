/**
 * Input names that, used as property names on ordinary objects, reach `Object.prototype`
 * (`obj["__proto__"][k] = v`) or a constructor's prototype. No field of either service is
 * called this, so a request that carries one is refused outright rather than filtered.
 */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
// `a[b][c]` form and query keys are paths: every bracketed segment counts as a name.
const SEGMENT = /[^[\]]+/g;
const MAX_DEPTH = 64;

/** The reserved name a key carries, whole or as a bracketed segment (`a[__proto__]`), if any. */
export function reservedSegment(key: string): string | undefined {
  if (RESERVED.has(key)) return key;
  for (const segment of key.match(SEGMENT) ?? []) if (RESERVED.has(segment)) return segment;
  return undefined;
}

/**
 * The first reserved name among the keys of a parsed value, at any depth. Deeper than
 * MAX_DEPTH is not searched: the parsers in front of this bound nesting well below it.
 */
export function findReservedKey(value: unknown, depth = 0): string | undefined {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findReservedKey(item, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const found = reservedSegment(key) ?? findReservedKey((value as Record<string, unknown>)[key], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The 400 message for a request that carries a reserved name. */
export function reservedKeyMessage(name: string): string {
  return `Parameter name '${name}' is not accepted.`;
}

/** An object with no prototype: a key such as `__proto__` is an ordinary own property of it. */
export function dictionary<T = unknown>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
