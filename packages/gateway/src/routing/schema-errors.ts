/**
 * Turns TypeBox validation errors into one precise line per problem, named by a readable path:
 * `models[3].providers.cloud_b.upstreamModel: required`. Operators fix data files from these
 * messages alone, so they must say where and what, not which schema branch failed.
 */
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';

/** `/models/3/providers/cloud_b` -> `models[3].providers.cloud_b`, under `root` if given. */
export function readablePath(instancePath: string, root = ''): string {
  let out = root;
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    out += /^\d+$/.test(segment) ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  }
  return out === '' ? '(root)' : out;
}

function join(path: string, key: string): string {
  return path === '(root)' ? key : `${path}.${key}`;
}

/** Every problem of `value` against `schema`, deduplicated, in document order. */
export function schemaProblems(schema: TSchema, value: unknown, root = ''): string[] {
  const problems: string[] = [];
  const allowed = new Map<string, string[]>();
  for (const error of Value.Errors(schema, value)) {
    const path = readablePath(error.instancePath, root);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        for (const key of params.requiredProperties as string[])
          problems.push(`${join(path, key)}: required`);
        break;
      case 'additionalProperties':
        for (const key of params.additionalProperties as string[])
          problems.push(`${join(path, key)}: unknown field`);
        break;
      case 'const': {
        const list = allowed.get(path) ?? [];
        list.push(String(params.allowedValue));
        allowed.set(path, list);
        break;
      }
      case 'boolean':
      case 'anyOf':
        // Reported through `additionalProperties` / the collected `const` alternatives instead.
        break;
      default:
        problems.push(`${path}: ${error.message}`);
    }
  }
  for (const [path, values] of allowed) problems.push(`${path}: must be one of ${values.join(', ')}`);
  return [...new Set(problems)];
}

/**
 * Validates a tagged union branch by branch: an unknown tag is one clear problem, a known tag
 * is checked against its own schema only, so errors from the other branches never appear.
 */
export function taggedProblems(
  branches: Readonly<Record<string, TSchema>>,
  tag: string,
  value: unknown,
  root: string,
): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return [`${root}: must be an object`];
  const key = (value as Record<string, unknown>)[tag];
  if (key === undefined) return [`${root}.${tag}: required`];
  const branch = typeof key === 'string' && Object.hasOwn(branches, key) ? branches[key] : undefined;
  if (branch === undefined) return [`${root}.${tag}: must be one of ${Object.keys(branches).join(', ')}`];
  return schemaProblems(branch, value, root);
}
