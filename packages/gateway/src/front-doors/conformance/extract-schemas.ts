/**
 * Extracts from an official OpenAPI document the schemas the conformance test needs (the front
 * doors' answers, stream events and error envelopes, and everything they reference) into a
 * compact JSON Schema (draft 2020-12) file committed under ./schemas, so the test runs offline.
 *
 *   node packages/gateway/src/front-doors/conformance/extract-schemas.ts <vendor> <document.json> \
 *     --repo <owner/name> --path <path in repo> --commit <sha> --date <YYYY-MM-DD> [--origin <text>]
 *
 * <vendor> is a key of ROOTS below; the document is the JSON file as the source repository holds
 * it (read from a clone, e.g. `git -C <clone> show <commit>:<path> > document.json`), or for a
 * vendor published as protocol buffers (PROTO_FILES) the root of a checkout of its .proto files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { protoDocument } from './proto-schemas.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The top-level schemas each vendor's test validates against; references are followed from these. */
export const ROOTS: Readonly<Record<string, readonly string[]>> = {
  openai: [
    'CreateChatCompletionResponse',
    'CreateChatCompletionStreamResponse',
    'Response',
    'ResponseStreamEvent',
    'ErrorResponse',
  ],
  anthropic: ['Message', 'MessageStreamEvent', 'ErrorResponse', 'BetaCountMessageTokensResponse'],
  // generateContent's answer is also each streamGenerateContent chunk.
  gemini: ['GenerateContentResponse', 'CountTokensResponse', 'ErrorResponse'],
};

/** Vendors published as protocol buffers: the .proto files to read (with their imports) from a checkout. */
const PROTO_FILES: Readonly<Record<string, readonly string[]>> = {
  gemini: ['google/ai/generativelanguage/v1beta/generative_service.proto'],
};

/**
 * Where the document is narrower than the live API it describes: the property made nullable, or
 * added with its schema, and why; recorded in the committed file's header so it stays visible.
 */
export interface Correction {
  readonly schema: string;
  readonly property: string;
  readonly add?: Json;
  readonly reason: string;
}

export const CORRECTIONS: Readonly<Record<string, readonly Correction[]>> = {
  openai: [
    {
      schema: 'Response',
      property: 'usage',
      reason:
        'OpenAI sends "usage": null in the response of response.created, response.in_progress and ' +
        'response.failed before usage is known; the document types usage as an object only',
    },
  ],
  gemini: [
    {
      schema: 'GenerateContentResponse.UsageMetadata',
      property: 'trafficType',
      add: {
        type: 'string',
        enum: ['ON_DEMAND', 'ON_DEMAND_PRIORITY', 'ON_DEMAND_FLEX', 'PROVISIONED_THROUGHPUT'],
      },
      reason:
        'The Gemini API reports the tier that served a request in usageMetadata.trafficType (its ' +
        'service tier guide); the v1beta protos do not carry the field yet',
    },
  ],
};

/** Keywords that only document (or steer code generators) and never constrain a value. */
const DOCUMENTARY = new Set([
  'description',
  'title',
  'examples',
  'example',
  'default',
  'deprecated',
  'discriminator',
  'externalDocs',
  'readOnly',
  'writeOnly',
  'xml',
  'enumDescriptions',
]);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const REF_PREFIX = '#/components/schemas/';

/** The component names `node` refers to, directly or below it. */
function references(node: Json, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) references(item, found);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX))
      found.add(value.slice(REF_PREFIX.length));
    else references(value, found);
  }
}

/** `roots` and every component they reach, in a stable (sorted) order. */
export function closure(components: JsonObject, roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (seen.has(name)) continue;
    const schema = components[name];
    if (schema === undefined) throw new Error(`schema ${name} is not in the document`);
    seen.add(name);
    const found = new Set<string>();
    references(schema, found);
    pending.push(...found);
  }
  return [...seen].sort();
}

/**
 * One OpenAPI schema (component `self`) as JSON Schema 2020-12: references point into `$defs`,
 * 3.0's `nullable` becomes a null alternative, draft 2019-09's `$recursiveRef: "#"` becomes a
 * reference to the component itself, `oneOf` becomes `anyOf` (OpenAPI unions are discriminated
 * by a `type` constant, and some variants overlap only in ways a schema cannot rule out, such as
 * two object shapes without `additionalProperties: false`), documentary keywords go, and so does
 * `type: null` (Anthropic's `Model` has one: not JSON Schema, it means no type constraint).
 */
export function convert(node: Json, self: string): Json {
  if (Array.isArray(node)) return node.map((item) => convert(item, self));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (DOCUMENTARY.has(key) || key.startsWith('x-') || key === 'nullable' || key === '$recursiveAnchor')
      continue;
    if (key === 'type' && value === null) continue;
    if (key === '$ref' && typeof value === 'string')
      out.$ref = value.startsWith(REF_PREFIX) ? `#/$defs/${value.slice(REF_PREFIX.length)}` : value;
    else if (key === '$recursiveRef') out.$ref = `#/$defs/${self}`;
    else if (key === 'oneOf') out.anyOf = convert(value, self);
    else if (key === 'properties' && isObject(value))
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, convert(sub, self)]),
      );
    else out[key] = convert(value, self);
  }
  return node.nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

/** Makes `property` nullable wherever `schema` (or a member of its allOf) defines it, or adds it. */
function applyCorrection(defs: JsonObject, correction: Correction): void {
  const schema = defs[correction.schema];
  if (correction.add !== undefined) {
    const properties = isObject(schema) ? schema.properties : undefined;
    if (!isObject(properties)) throw new Error(`correction: ${correction.schema} has no properties`);
    properties[correction.property] = correction.add;
    return;
  }
  const parts = isObject(schema) && Array.isArray(schema.allOf) ? [schema, ...schema.allOf] : [schema];
  let applied = false;
  for (const part of parts) {
    const properties = isObject(part ?? null) ? (part as JsonObject).properties : undefined;
    const target = isObject(properties) ? properties[correction.property] : undefined;
    if (!isObject(properties) || target === undefined) continue;
    properties[correction.property] = { anyOf: [target, { type: 'null' }] };
    applied = true;
  }
  if (!applied) throw new Error(`correction: ${correction.schema} has no property ${correction.property}`);
}

export interface Source {
  readonly repo: string;
  readonly path: string;
  readonly commit: string;
  readonly date: string;
  /** Where the holder of the copy got it, when it is not the author's own repository. */
  readonly origin?: string;
}

/** The committed file: where it came from, its roots, and the converted schemas. */
export function extract(document: JsonObject, vendor: string, source: Source): JsonObject {
  const roots = ROOTS[vendor];
  if (!roots) throw new Error(`unknown vendor ${vendor}; known: ${Object.keys(ROOTS).join(', ')}`);
  const components = document.components;
  const schemas = isObject(components) ? components.schemas : undefined;
  if (!isObject(schemas)) throw new Error('the document has no components.schemas');
  const names = closure(schemas, roots);
  const defs: JsonObject = {};
  for (const name of names) defs[name] = convert(schemas[name] as Json, name);
  const corrections = CORRECTIONS[vendor] ?? [];
  for (const correction of corrections) applyCorrection(defs, correction);
  const info = isObject(document.info) ? document.info : {};
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $comment: 'Generated by extract-schemas.ts from the source below; do not edit by hand.',
    source: {
      ...source,
      openapi: document.openapi ?? null,
      title: info.title ?? null,
      version: info.version ?? null,
    },
    roots: [...roots],
    corrections: corrections.map((correction) => ({ ...correction })),
    $defs: defs,
  };
}

export const SCHEMAS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'schemas');

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      repo: { type: 'string' },
      path: { type: 'string' },
      commit: { type: 'string' },
      date: { type: 'string' },
      origin: { type: 'string' },
    },
  });
  const [vendor, file] = positionals;
  const { repo, path, commit, date, origin } = values;
  if (!vendor || !file || !repo || !path || !commit || !date) {
    console.error(
      'usage: extract-schemas.ts <vendor> <document.json | proto root> --repo R --path P --commit C --date D',
    );
    process.exit(2);
  }
  const protos = PROTO_FILES[vendor];
  const document = (
    protos ? protoDocument(file, protos) : JSON.parse(readFileSync(file, 'utf8'))
  ) as JsonObject;
  const result = extract(document, vendor, { repo, path, commit, date, ...(origin ? { origin } : {}) });
  const target = join(SCHEMAS_DIR, `${vendor}.json`);
  // Formatted as the repository's `prettier --check` wants it, so a refresh lints clean.
  const options = (await resolveConfig(target)) ?? {};
  writeFileSync(target, await format(JSON.stringify(result), { ...options, parser: 'json' }));
  console.log(`${target}: ${Object.keys(result.$defs as JsonObject).length} schemas`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
