import type { Static, TSchema } from 'typebox';
import { Settings } from 'typebox/system';
import { Value } from 'typebox/value';
import { describeProblems } from './config-problems.ts';

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Maps a config property path (e.g. `port`) to the environment variable that sets it. */
export type EnvMapping = Readonly<Record<string, string>>;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === undefined || next === null || typeof next !== 'object') node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  const last = parts.at(-1);
  if (last !== undefined) node[last] = value;
}

/** Environment values are strings; a JSON-looking value (array/object) is parsed so lists can be set. */
function envValue(raw: string): unknown {
  const trimmed = raw.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return raw;
    }
  }
  return raw;
}

/**
 * TypeBox's Convert truncates a fraction given for an integer setting (`80.5` becomes 80), so a
 * typo would silently change the value. Where the input holds a number, or a numeric string,
 * with a fraction for an integer node, the input value is put back after conversion and the
 * strict check names it like any other bad value.
 */
function restoreFractions(schema: TSchema, input: unknown, converted: unknown): unknown {
  const node = schema as { type?: unknown; properties?: Record<string, TSchema>; items?: TSchema };
  if (node.type === 'integer') {
    const number = typeof input === 'string' ? Number(input.trim()) : input;
    return typeof number === 'number' && Number.isFinite(number) && !Number.isInteger(number)
      ? input
      : converted;
  }
  if (!isRecord(input) || !isRecord(converted)) {
    if (!Array.isArray(input) || !Array.isArray(converted) || node.items === undefined) return converted;
    const items = node.items;
    return converted.map((item: unknown, i) => restoreFractions(items, input[i], item));
  }
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (key in input && key in converted)
      converted[key] = restoreFractions(child, input[key], converted[key]);
  }
  return converted;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * TypeBox stops after 8 errors (a guard for untrusted request bodies) and one enum spends 8 on
 * itself; an operator's own configuration is checked in full, so every mistake is named at once.
 */
function allErrors(schema: TSchema, value: unknown) {
  const limit = Settings.Get().maxErrors;
  Settings.Set({ maxErrors: 10_000 });
  try {
    return [...Value.Errors(schema, value)];
  } finally {
    Settings.Set({ maxErrors: limit });
  }
}

/**
 * Loads configuration once: defaults from the schema, then an optional file object, then the
 * environment, converted to the schema's types and checked strictly (unknown keys rejected by
 * the schemas' additionalProperties: false). Returns a deeply frozen object or throws a
 * ConfigError naming every problem by the env variable that sets it and what it accepts
 * (config-problems.ts).
 */
export function loadConfig<S extends TSchema>(
  schema: S,
  options: {
    env?: NodeJS.ProcessEnv;
    mapping: EnvMapping;
    file?: Record<string, unknown>;
    overrides?: Record<string, unknown>;
    /** Last step before freezing, on the valid configuration (e.g. anchoring relative paths). */
    finish?: (config: Static<S>) => Static<S>;
  },
): Static<S> {
  const input: Record<string, unknown> = structuredClone(options.file ?? {});
  const env = options.env ?? {};
  for (const [path, variable] of Object.entries(options.mapping)) {
    const raw = env[variable];
    if (raw !== undefined && raw !== '') setPath(input, path, envValue(raw));
  }
  for (const [path, value] of Object.entries(options.overrides ?? {})) setPath(input, path, value);
  const withDefaults = Value.Default(schema, input);
  // Convert may change its argument in place: the fractions are read from a copy.
  const converted = restoreFractions(
    schema,
    withDefaults,
    Value.Convert(schema, structuredClone(withDefaults)),
  );
  const errors = allErrors(schema, converted);
  if (errors.length > 0) {
    throw new ConfigError([...new Set(describeProblems(schema, errors, options.mapping, converted))]);
  }
  const finished = options.finish ? options.finish(converted as Static<S>) : (converted as Static<S>);
  return deepFreeze(finished);
}
