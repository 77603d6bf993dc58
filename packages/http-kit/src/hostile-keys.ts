/**
 * Test support: key paths that try to reach Object.prototype, written in every input syntax
 * the services parse, and a check that no prototype changed. Only tests import this.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';

export type KeyPath = readonly string[];

const RESERVED = ['__proto__', 'constructor', 'prototype'] as const;
const PLAIN = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);

/** 1 to 4 segments, each a reserved name or a plain identifier (also valid as an XML name). */
export const keyPath: fc.Arbitrary<KeyPath> = fc.array(fc.oneof(fc.constantFrom(...RESERVED), PLAIN), {
  minLength: 1,
  maxLength: 4,
});

export function hasReservedSegment(path: KeyPath): boolean {
  return path.some((segment) => (RESERVED as readonly string[]).includes(segment));
}

/** `a[b][c]`, as forms and query strings nest names (Rails, qs). */
export function bracketKey(path: KeyPath): string {
  const [head = '', ...rest] = path;
  return head + rest.map((segment) => `[${segment}]`).join('');
}

/** `a[b]=v`, with the brackets percent-encoded or not (clients do both). */
export function formPair(path: KeyPath, value: string, encodeBrackets: boolean): string {
  const key = encodeBrackets ? encodeURIComponent(bracketKey(path)) : bracketKey(path);
  return `${key}=${encodeURIComponent(value)}`;
}

/** `{"a":{"b":leaf}}` as JSON text: built as text so `__proto__` stays a literal key. */
export function jsonNest(path: KeyPath, leaf: string): string {
  return path.reduceRight((inner, segment) => `{${JSON.stringify(segment)}:${inner}}`, JSON.stringify(leaf));
}

/** `<a><b>leaf</b></a>`. */
export function xmlNest(path: KeyPath, leaf: string): string {
  return path.reduceRight((inner, segment) => `<${segment}>${inner}</${segment}>`, leaf);
}

const PROTOTYPES: ReadonlyArray<readonly [string, object]> = [
  ['Object', Object.prototype],
  ['Array', Array.prototype],
  ['Function', Function.prototype],
  ['String', String.prototype],
];

type Snapshot = ReadonlyArray<readonly [string, ReadonlyMap<string | symbol, unknown>]>;

/** Every own property of the built-in prototypes that input could reach, by identity. */
export function prototypeSnapshot(): Snapshot {
  return PROTOTYPES.map(([name, proto]) => [
    name,
    new Map(Reflect.ownKeys(proto).map((key) => [key, Object.getOwnPropertyDescriptor(proto, key)?.value])),
  ]);
}

/** Fails, naming the prototype and the property, if any was added, removed or replaced. */
export function assertPrototypesIntact(before: Snapshot): void {
  for (const [[name, proto], [, properties]] of PROTOTYPES.map((entry, i) => [entry, before[i]!] as const)) {
    const now = Reflect.ownKeys(proto);
    const added = now.filter((key) => !properties.has(key));
    assert.deepEqual(added.map(String), [], `${name}.prototype gained properties`);
    for (const [key, value] of properties) {
      assert.equal(
        Object.getOwnPropertyDescriptor(proto, key)?.value,
        value,
        `${name}.prototype.${String(key)} changed`,
      );
    }
  }
}
