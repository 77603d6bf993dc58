/**
 * Test support: hostile requests derived from a service's own OpenAPI document. For every
 * operation it declares: path parameters that are malformed, huge or of the wrong type; query
 * parameters and extra keys; bodies in every content type the operation accepts (and some it
 * does not), whose declared fields get wrong types, huge and deeply nested values, odd unicode
 * and NUL, beside junk fields. `assertSane` says what every answer must be.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

type Json = Record<string, unknown>;

export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  readonly contentTypes: readonly string[];
  /** Declared body fields with their JSON Schema type, where the document says. */
  readonly fields: ReadonlyArray<readonly [string, string | undefined]>;
}

function resolve(doc: Json, schema: unknown): Json {
  const node = (schema ?? {}) as Json;
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  const name = ref.split('/').at(-1) ?? '';
  return ((doc.components as Json | undefined)?.schemas as Json | undefined)?.[name] as Json;
}

function fieldsOf(doc: Json, content: Json): Array<[string, string | undefined]> {
  const first = Object.values(content)[0] as Json | undefined;
  const schema = resolve(doc, first?.schema);
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  return Object.entries(properties).map(([name, property]) => {
    const type = resolve(doc, property).type;
    return [name, typeof type === 'string' ? type : undefined];
  });
}

export function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, raw] of Object.entries(methods)) {
      const op = raw as Json;
      const parameters = (op.parameters ?? []) as Json[];
      const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Json;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => String(p.name)),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => String(p.name)),
        contentTypes: Object.keys(content),
        fields: fieldsOf(doc, content),
      });
    }
  }
  return operations;
}

const oddText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    '\uFEFF',
    '\uD800',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    '‮reversed',
    "' OR 1=1 --",
    '%00',
    '../../etc/passwd',
    '<script>',
  ),
  fc.string({ minLength: 2000, maxLength: 5000 }),
);

/** A value of the wrong shape, or a hostile one of the right shape. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  oddText,
  fc.constantFrom(null, true, -1, 0, 1e308, -1e308, 2 ** 53 + 1, 1.5, [], {}, 'NaN'),
  fc.jsonValue({ maxDepth: 3 }),
  fc
    .integer({ min: 1, max: 400 })
    .map((depth) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown),
);

const pathValue = fc.oneof(
  fc.integer({ min: -5, max: 5 }).map(String),
  fc.constantFrom('%', '%ff', '%2e%2e', '..', '1e3', '0x10', 'null', '%00', ' '),
  fc.string({ maxLength: 300 }).map(encodeURIComponent),
);

function bodyFor(op: Operation, type: string): fc.Arbitrary<string> {
  const names = op.fields.map(([name]) => name);
  const record = fc.dictionary(fc.constantFrom(...(names.length > 0 ? names : ['x'])), hostileValue, {
    maxKeys: 6,
  });
  const withJunk = fc.tuple(
    record,
    fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 3 }),
  );
  const objects = withJunk.map(([known, junk]) => ({ ...junk, ...known }));
  if (type.includes('json'))
    return fc.oneof(
      objects.map((value) => JSON.stringify(value)),
      oddText,
      fc.constantFrom('{', '[]', 'null', '"x"'),
    );
  if (type.includes('x-www-form-urlencoded'))
    return objects.map((value) =>
      new URLSearchParams(Object.entries(value).map(([k, v]): [string, string] => [k, String(v)])).toString(),
    );
  const xmlName = (name: string) => (/^[A-Za-z_][\w-]*$/.test(name) ? name : 'x');
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return fc.oneof(
    objects.map(
      (value) =>
        `<root>${Object.entries(value)
          .map(([k, v]) => `<${xmlName(k)}>${escape(String(v))}</${xmlName(k)}>`)
          .join('')}</root>`,
    ),
    oddText,
  );
}

/** Hostile requests for one operation, as `inject` options (headers added by the caller). */
export function requestsFor(op: Operation): fc.Arbitrary<InjectOptions> {
  const path = fc
    .tuple(...op.pathParams.map(() => pathValue))
    .map((values) =>
      op.pathParams.reduce((url, name, i) => url.replace(`{${name}}`, values[i] ?? '1'), op.path),
    );
  const query = fc.dictionary(
    fc.oneof(fc.constantFrom(...op.queryParams, 'format', 'x'), fc.string({ maxLength: 8 })),
    oddText,
    { maxKeys: 3 },
  );
  const types = [
    ...op.contentTypes,
    'text/plain',
    'application/octet-stream',
    'application/json; charset=latin-9',
  ];
  const body =
    op.contentTypes.length === 0
      ? fc.constant(undefined)
      : fc.constantFrom(...types).chain((type) => bodyFor(op, type).map((payload) => ({ type, payload })));
  return fc.tuple(path, query, body).map(([url, params, sent]) => {
    const search = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return {
      method: op.method as InjectOptions['method'],
      url: search === '' ? url : `${url}?${search}`,
      ...(sent ? { payload: sent.payload, headers: { 'content-type': sent.type } } : {}),
    };
  });
}

/** What no answer may contain: stack frames, internal paths, framework codes. */
const LEAKS = /\bat [\w.<>]+ \(|node:internal|\/work\/|\/home\/|FST_ERR|"stack"|Error: /;

export function assertSane(
  response: LightMyRequestResponse,
  isServiceError: (r: LightMyRequestResponse) => boolean,
): void {
  const where = `${response.statusCode} ${response.body.slice(0, 300)}`;
  assert.ok(response.statusCode < 500, `5xx: ${where}`);
  assert.doesNotMatch(response.body, LEAKS, where);
  if (response.statusCode >= 400)
    assert.ok(isServiceError(response), `not the service's error format: ${where}`);
}

/** The process is alive and its metrics render (a poisoned prototype broke them once). */
export async function assertStillHealthy(app: FastifyInstance): Promise<void> {
  for (const url of ['/healthz', '/metrics']) {
    const response = await app.inject({ url });
    assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 200)}`);
  }
}

/** Runs and seed: bounded and fixed in CI; `FUZZ_RUNS` / `FUZZ_SEED` for longer runs. */
export function fuzzParameters(
  env: NodeJS.ProcessEnv,
  defaultRuns: number,
): { numRuns: number; seed: number } {
  const runs = Number(env.FUZZ_RUNS);
  const seed = Number(env.FUZZ_SEED);
  return {
    numRuns: Number.isInteger(runs) && runs > 0 ? runs : defaultRuns,
    seed: Number.isInteger(seed) ? seed : 14,
  };
}

/**
 * Fuzzes every operation of the app's own OpenAPI document under `pathPrefix`, each request sent
 * with or without the caller's credentials, then checks the process is still healthy.
 */
export async function fuzzOperations(
  app: FastifyInstance,
  options: {
    readonly pathPrefix: string;
    readonly credentials: Record<string, string>;
    readonly isServiceError: (response: LightMyRequestResponse) => boolean;
  },
): Promise<void> {
  const doc = (await app.inject({ url: '/openapi.json' })).json() as Json;
  const operations = operationsOf(doc).filter((op) => op.path.startsWith(options.pathPrefix));
  const requests = fc.constantFrom(...operations).chain((op) => requestsFor(op));
  await fc.assert(
    fc.asyncProperty(requests, fc.boolean(), async (request, authenticated) => {
      const headers = {
        ...(request.headers as Record<string, string>),
        ...(authenticated ? options.credentials : {}),
      };
      assertSane(await app.inject({ ...request, headers }), options.isServiceError);
    }),
    fuzzParameters(process.env, 300),
  );
  await assertStillHealthy(app);
}
