/**
 * The request-body examples of the OpenAPI document are the bodies Swagger UI's "Try it out"
 * sends: every one of them, in every media type, is sent to the service here and must succeed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../auth/credentials.ts';
import { energyHarness, type Harness } from '../testing/harness.ts';

interface Media {
  readonly example?: unknown;
  readonly examples?: Record<string, { value: unknown }>;
}

interface Operation {
  readonly path: string;
  readonly method: string;
  readonly content: Record<string, Media>;
}

const METHOD_ORDER = ['post', 'put', 'patch'];

/** Operations with a request body, creations first (the updates need records to update). */
function bodyOperations(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(item)) {
      const content = (operation as { requestBody?: { content: Record<string, Media> } }).requestBody
        ?.content;
      if (content) found.push({ path, method, content });
    }
  return found.sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
}

function examplesOf(media: Media): Array<[string, unknown]> {
  const named = Object.entries(media.examples ?? {}).map(([name, example]): [string, unknown] => [
    name,
    example.value,
  ]);
  return media.example === undefined ? named : [...named, ['example', media.example]];
}

function encode(type: string, value: unknown): string {
  if (type === 'application/json') return JSON.stringify(value);
  if (type === 'application/x-www-form-urlencoded')
    return new URLSearchParams(value as Record<string, string>).toString();
  assert.equal(typeof value, 'string', `${type} examples are documents`);
  return value as string;
}

describe('OpenAPI request-body examples', () => {
  let h: Harness;
  let token: string;
  let document: { paths: Record<string, Record<string, unknown>> };
  /** Ids by collection (`buildings`, `operations`, ...), for the `{id}` of member routes. */
  const ids = new Map<string, string>();

  before(async () => {
    h = await energyHarness('sqlite');
    ({ token } = await h.user());
    document = (await h.app.inject({ url: '/openapi.json' })).json();
    const building = await h.app.inject({
      method: 'POST',
      url: '/api/v1/buildings',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Examples' },
    });
    ids.set('buildings', String(building.json().id));
  });
  after(() => h?.close());

  /** The path with its parameters filled in from the records made so far. */
  function urlOf(path: string): string {
    return path
      .replace(/\/([a-z_]+)\/\{id\}/, (_, plural: string) => `/${plural}/${ids.get(plural)}`)
      .replace('{building_id}', ids.get('buildings') ?? '');
  }

  test('every media type of every request body has an example Swagger UI fills in', () => {
    const operations = bodyOperations(document);
    assert.ok(operations.length >= 8, `${operations.length} operations with a body`);
    const missing: string[] = [];
    for (const { path, method, content } of operations) {
      assert.deepEqual(Object.keys(content).sort(), [
        'application/json',
        'application/x-www-form-urlencoded',
        'application/xml',
      ]);
      // Swagger UI remembers the name of the example picked, across media types: a media type
      // with named examples and none of that name gets a body made up from its schema instead.
      const names = Object.values(content).flatMap((media) => Object.keys(media.examples ?? {}));
      for (const [type, media] of Object.entries(content)) {
        if (examplesOf(media).length === 0) missing.push(`${method} ${path} ${type}: no example`);
        else if (media.examples)
          for (const name of names.filter((picked) => !(picked in (media.examples ?? {}))))
            missing.push(`${method} ${path} ${type}: made up from the schema once '${name}' is picked`);
      }
    }
    assert.deepEqual(missing, []);
  });

  test('a form in Swagger UI is filled in with the example, and nothing made up', () => {
    for (const { path, method, content } of bodyOperations(document)) {
      const form = content['application/x-www-form-urlencoded'] as Media & {
        schema: { properties: Record<string, { example?: unknown }> };
      };
      // Swagger UI sends every field of a form: its property's example, else a value made up
      // from its type ("string", 0).
      const fields = Object.entries(form.schema.properties).map(([name, property]) => [
        name,
        property.example,
      ]);
      assert.deepEqual(Object.fromEntries(fields), form.example, `${method} ${path}`);
    }
  });

  test('every example is accepted by the service', async () => {
    const email = 'facilities@example.com';
    const authenticate = document.paths['/api/v1/users/authenticate']?.post as {
      requestBody: { content: Record<string, Media> };
    };
    const { password } = authenticate.requestBody.content['application/json']?.examples?.flat?.value as {
      password: string;
    };
    await createUser(h.db, email, password);
    for (const { path, method, content } of bodyOperations(document))
      for (const [type, media] of Object.entries(content))
        for (const [name, value] of examplesOf(media)) {
          const response = await h.app.inject({
            method: method.toUpperCase() as 'POST',
            url: urlOf(path),
            headers: { authorization: `Bearer ${token}`, 'content-type': type },
            payload: encode(type, value),
          });
          const label = `${method} ${path} ${type} ${name}`;
          assert.ok(response.statusCode >= 200 && response.statusCode < 300, `${label}: ${response.body}`);
          const created = /\/api\/v1\/([a-z_]+)\/(\d+)$/.exec(String(response.headers.location ?? ''));
          if (created?.[1] && created[2] && !ids.has(created[1])) ids.set(created[1], created[2]);
        }
    assert.ok(ids.has('operations') && ids.has('elevators'), [...ids.keys()].join());
  });

  test('the format parameter is one string enum, json or xml', () => {
    let seen = 0;
    for (const item of Object.values(document.paths))
      for (const operation of Object.values(item)) {
        const parameters = (operation as { parameters?: Array<{ name: string; schema: unknown }> })
          .parameters;
        for (const parameter of parameters ?? []) {
          if (parameter.name !== 'format') continue;
          seen += 1;
          assert.deepEqual(parameter.schema, { type: 'string', enum: ['json', 'xml'] });
        }
      }
    assert.ok(seen >= 10, `${seen} format parameters`);
  });
});
