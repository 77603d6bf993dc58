/**
 * Google publishes the Gemini API (generativelanguage v1beta) as protocol buffers; its JSON is
 * the proto3 JSON mapping of those messages. This reads the .proto files (the subset of proto3
 * they use: messages, nested messages and enums, oneofs, maps, repeated and optional fields)
 * and gives each message and enum as a JSON Schema, in an OpenAPI-shaped document that
 * extract-schemas.ts then cuts down like the others:
 * - field names in lowerCamelCase (or their `json_name`), as Google's printers write them;
 * - enums as their value names; 64-bit integers as a decimal string or a number; bytes as base64;
 * - well-known types (Struct, Value, Timestamp, Duration, ...) as their JSON forms;
 * - messages closed (`additionalProperties: false`): a proto JSON parser rejects unknown fields.
 * `ErrorResponse` is Google's JSON error envelope around google.rpc.Status (code, message,
 * status: a google.rpc.Code name, details), built from status.proto and code.proto.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

interface Field {
  readonly name: string;
  readonly type: string;
  readonly repeated: boolean;
  readonly map?: { readonly key: string; readonly value: string };
  readonly jsonName?: string;
}

interface Definition {
  readonly kind: 'message' | 'enum';
  readonly scope: string;
  readonly fields: Field[];
  readonly values: string[];
}

const INT64: Schema = { anyOf: [{ type: 'string', pattern: '^-?[0-9]+$' }, { type: 'integer' }] };
const SCALARS: Readonly<Record<string, Schema>> = {
  double: { type: 'number' },
  float: { type: 'number' },
  int32: { type: 'integer' },
  uint32: { type: 'integer', minimum: 0 },
  sint32: { type: 'integer' },
  fixed32: { type: 'integer', minimum: 0 },
  sfixed32: { type: 'integer' },
  int64: INT64,
  uint64: INT64,
  sint64: INT64,
  fixed64: INT64,
  sfixed64: INT64,
  bool: { type: 'boolean' },
  string: { type: 'string' },
  bytes: { type: 'string' },
};

const WELL_KNOWN: Readonly<Record<string, Schema>> = {
  'google.protobuf.Struct': { type: 'object' },
  'google.protobuf.Value': {},
  'google.protobuf.ListValue': { type: 'array' },
  'google.protobuf.Any': { type: 'object', required: ['@type'] },
  'google.protobuf.Empty': { type: 'object', additionalProperties: false },
  'google.protobuf.Timestamp': { type: 'string' },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?s$' },
  'google.protobuf.FieldMask': { type: 'string' },
  'google.protobuf.StringValue': { type: 'string' },
  'google.protobuf.BoolValue': { type: 'boolean' },
  'google.protobuf.Int32Value': { type: 'integer' },
  'google.protobuf.DoubleValue': { type: 'number' },
  'google.protobuf.FloatValue': { type: 'number' },
};

/** Words, strings and punctuation of a .proto file, comments left out. */
function tokens(text: string): string[] {
  const pattern =
    /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z0-9_.+-]+|[^\sA-Za-z0-9_]/g;
  return (text.match(pattern) ?? []).filter((token) => !token.startsWith('//') && !token.startsWith('/*'));
}

function lowerCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

class ProtoReader {
  readonly definitions = new Map<string, Definition>();
  readonly #read = new Set<string>();
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  /** Reads `file` (relative to the root) and, transitively, what it imports from the root. */
  readFile(file: string): void {
    if (this.#read.has(file)) return;
    this.#read.add(file);
    const list = tokens(readFileSync(join(this.#root, file), 'utf8'));
    let pkg = '';
    for (let at = 0; at < list.length;) {
      const word = list[at];
      if (word === 'package') pkg = list[at + 1] ?? '';
      if (word === 'import') {
        const target = (list[at + 1] ?? '').replace(/^"|"$/g, '');
        if (!/^google\/(protobuf|api|longrunning)\//.test(target)) this.readFile(target);
      }
      if (word === 'message' || word === 'enum') at = this.#definition(list, at, pkg);
      else if (word === 'service' || word === 'extend') at = skipBlock(list, at);
      else at += 1;
    }
  }

  /** Reads the message or enum at `at` (and what it nests) under `scope`; gives the index after it. */
  #definition(list: string[], at: number, scope: string): number {
    const kind = list[at] as 'message' | 'enum';
    const name = `${scope}.${list[at + 1] ?? ''}`;
    const definition: Definition = { kind, scope: name, fields: [], values: [] };
    this.definitions.set(name, definition);
    let index = at + 3; // past `message Name {`
    let inOneof = false; // a oneof's fields are read as the message's own
    while (index < list.length) {
      const word = list[index] ?? '';
      if (word === '}') {
        if (!inOneof) break;
        inOneof = false;
        index += 1;
      } else if (word === 'oneof') {
        inOneof = true;
        index += 3; // past `oneof name {`
      } else if (word === 'message' || word === 'enum') index = this.#definition(list, index, name);
      else if (['option', 'reserved', 'extensions', ';'].includes(word)) index = skipStatement(list, index);
      else if (kind === 'enum') {
        definition.values.push(word);
        index = skipStatement(list, index);
      } else index = this.#field(list, index, definition);
    }
    return index + 1;
  }

  #field(list: string[], at: number, definition: Definition): number {
    let index = at;
    let repeated = false;
    if (list[index] === 'repeated') repeated = true;
    if (list[index] === 'repeated' || list[index] === 'optional') index += 1;
    let type = list[index] ?? '';
    let map: Field['map'];
    if (type === 'map') {
      map = { key: list[index + 2] ?? '', value: list[index + 4] ?? '' };
      index += 5; // map < K , V >
      type = 'map';
    }
    const name = list[index + 1] ?? '';
    const end = skipStatement(list, index);
    const options = list.slice(index, end).join(' ');
    const jsonName = /json_name = "([^"]+)"/.exec(options)?.[1];
    definition.fields.push({
      name,
      type,
      repeated,
      ...(map ? { map } : {}),
      ...(jsonName ? { jsonName } : {}),
    });
    return end;
  }
}

/** The index after the statement starting at `at`: its `;` outside brackets and braces. */
function skipStatement(list: string[], at: number): number {
  let depth = 0;
  let index = at;
  for (; index < list.length; index += 1) {
    const token = list[index];
    if (token === '{' || token === '[') depth += 1;
    else if (token === '}' || token === ']') depth -= 1;
    else if (token === ';' && depth === 0) break;
  }
  return index + 1;
}

/** The index after the `{ ... }` block that follows `at`. */
function skipBlock(list: string[], at: number): number {
  let index = list.indexOf('{', at);
  let depth = 0;
  do {
    if (list[index] === '{') depth += 1;
    if (list[index] === '}') depth -= 1;
    index += 1;
  } while (depth > 0 && index < list.length);
  return index;
}

/** The fully qualified name `type` means inside `scope`, by proto's scoping rules. */
function resolve(definitions: Map<string, Definition>, type: string, scope: string): string {
  if (type.startsWith('.')) return type.slice(1);
  const parts = scope.split('.');
  for (let length = parts.length; length >= 0; length -= 1) {
    const candidate = [...parts.slice(0, length), type].join('.');
    if (definitions.has(candidate) || WELL_KNOWN[candidate]) return candidate;
  }
  throw new Error(`unknown type ${type} in ${scope}`);
}

export const GEMINI_PACKAGE = 'google.ai.generativelanguage.v1beta';

function shortName(name: string): string {
  return name.startsWith(`${GEMINI_PACKAGE}.`) ? name.slice(GEMINI_PACKAGE.length + 1) : name;
}

function typeSchema(definitions: Map<string, Definition>, type: string, scope: string): Schema {
  const scalar = SCALARS[type];
  if (scalar) return scalar;
  const name = resolve(definitions, type, scope);
  return WELL_KNOWN[name] ?? { $ref: `#/components/schemas/${shortName(name)}` };
}

function messageSchema(definitions: Map<string, Definition>, definition: Definition): Schema {
  const properties: Schema = {};
  for (const field of definition.fields) {
    const value = field.map
      ? { type: 'object', additionalProperties: typeSchema(definitions, field.map.value, definition.scope) }
      : typeSchema(definitions, field.type, definition.scope);
    properties[field.jsonName ?? lowerCamel(field.name)] = field.repeated
      ? { type: 'array', items: value }
      : value;
  }
  return { type: 'object', properties, additionalProperties: false };
}

/** Google's JSON error envelope: `{"error": google.rpc.Status with its code's name as status}`. */
function errorResponse(definitions: Map<string, Definition>): Schema {
  const codes = definitions.get('google.rpc.Code')?.values ?? [];
  if (codes.length === 0) throw new Error('google/rpc/code.proto was not read');
  const error = {
    type: 'object',
    properties: {
      code: { type: 'integer' },
      message: { type: 'string' },
      status: { type: 'string', enum: codes },
      details: { type: 'array', items: { type: 'object' } },
    },
    required: ['code', 'message', 'status'],
  };
  return { type: 'object', properties: { error }, required: ['error'] };
}

/** The messages and enums of `files` (read from `root`, with their imports) as an OpenAPI-shaped document. */
export function protoDocument(root: string, files: readonly string[]): Schema {
  const reader = new ProtoReader(root);
  for (const file of [...files, 'google/rpc/code.proto']) reader.readFile(file);
  const schemas: Schema = {};
  for (const [name, definition] of reader.definitions)
    schemas[shortName(name)] =
      definition.kind === 'enum'
        ? { type: 'string', enum: definition.values }
        : messageSchema(reader.definitions, definition);
  schemas.ErrorResponse = errorResponse(reader.definitions);
  return {
    openapi: null,
    info: { title: 'Generative Language API (protocol buffers)', version: 'v1beta' },
    components: { schemas },
  };
}
