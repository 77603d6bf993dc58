/**
 * Configuration errors in an operator's words: the environment variable that sets the value
 * and what it accepts (the allowed values of an enum, the range of a number, the forms of a
 * URL), instead of the validator's "must be equal to constant / must match a schema in anyOf".
 */
import type { TSchema } from 'typebox';

/** The parts of a JSON schema the messages are made from; `expected` is this kit's own keyword. */
interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  anyOf?: SchemaNode[];
  const?: unknown;
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  items?: SchemaNode;
  /** Human text of the accepted forms (e.g. of a URL), used instead of the pattern. */
  expected?: string;
}

export interface ValidationIssue {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly message: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
}

function nodeAt(schema: SchemaNode, path: string): SchemaNode | undefined {
  if (path === '') return schema;
  let node: SchemaNode | undefined = schema;
  for (const part of path.split('.')) node = node?.properties?.[part];
  return node;
}

function range(node: SchemaNode): string {
  const { minimum: min, maximum: max } = node;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

const typeOf = (node: SchemaNode) => (Array.isArray(node.type) ? node.type[0] : node.type);

/** What a schema node accepts, as a sentence ending; undefined when the schema says nothing useful. */
export function expectation(node: SchemaNode): string | undefined {
  const literals = node.anyOf?.filter((option) => option.const !== undefined);
  if (literals && literals.length > 0 && literals.length === node.anyOf?.length)
    return `must be one of: ${literals.map((option) => String(option.const)).join(', ')}`;
  if (node.expected) return `must be ${node.expected}`;
  switch (typeOf(node)) {
    case 'integer':
      return `must be a whole number${range(node)}`;
    case 'number':
      return `must be a number${range(node)}`;
    case 'boolean':
      return 'must be true or false';
    case 'array':
      return `must be a JSON list${node.items?.type ? ` of ${String(node.items.type)}s` : ''}, e.g. ["a","b"]`;
    case 'object':
      return 'must be a JSON object';
    case 'string':
      if (node.pattern) return `must match the pattern ${node.pattern}`;
      if (node.minLength) return 'must not be empty';
      return 'must be a string';
    default:
      return undefined;
  }
}

/**
 * Values of these kinds are shown back to the operator; strings are not, since a URL or a path
 * may carry a password.
 */
function shown(node: SchemaNode, value: unknown): string {
  const kind = typeOf(node);
  const safe = node.anyOf !== undefined || kind === 'integer' || kind === 'number' || kind === 'boolean';
  return safe && value !== undefined ? ` (got ${JSON.stringify(value)})` : '';
}

function valueAt(input: unknown, path: string): unknown {
  let value = input;
  for (const part of path === '' ? [] : path.split('.')) {
    value =
      value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}

/**
 * One problem per setting: `VARIABLE: must be ...`, or, for a value from the config file that
 * no variable sets, the key path. Unknown keys (a file's typo) are named as such.
 */
export function describeProblems(
  schema: TSchema,
  issues: readonly ValidationIssue[],
  mapping: Readonly<Record<string, string>>,
  input: unknown,
): string[] {
  const byPath = new Map<string, ValidationIssue[]>();
  for (const issue of issues) {
    // The unknown key itself fails `additionalProperties: false`; its parent's issue names it.
    if (issue.schemaPath.endsWith('/additionalProperties')) continue;
    const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    byPath.set(path, [...(byPath.get(path) ?? []), issue]);
  }
  const problems: string[] = [];
  for (const [path, list] of byPath) {
    const unknown = list.flatMap((issue) =>
      issue.keyword === 'additionalProperties' ? toStrings(issue.params.additionalProperties) : [],
    );
    for (const key of unknown) problems.push(`${path ? `${path}.` : ''}${key}: unknown setting`);
    for (const key of list.flatMap((issue) =>
      issue.keyword === 'required' ? toStrings(issue.params.requiredProperties) : [],
    ))
      problems.push(`${path ? `${path}.` : ''}${key}: required setting missing`);
    if (list.every((issue) => issue.keyword === 'required' || issue.keyword === 'additionalProperties'))
      continue;
    // An item of a list is reported as the list, under the variable that sets it.
    const setting = settingOf(path, mapping);
    const node = nodeAt(schema as SchemaNode, setting) ?? {};
    const where = mapping[setting] ?? `${setting || '(root)'} (configuration file)`;
    const what = expectation(node) ?? list.at(-1)?.message ?? 'is invalid';
    problems.push(`${where}: ${what}${shown(node, valueAt(input, setting))}`);
  }
  return problems;
}

function settingOf(path: string, mapping: Readonly<Record<string, string>>): string {
  for (let at = path; at !== ''; at = at.includes('.') ? at.slice(0, at.lastIndexOf('.')) : '') {
    if (mapping[at] !== undefined) return at;
  }
  return path;
}

function toStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}
