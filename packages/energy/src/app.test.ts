import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { answered413, uploadThenRead } from '@app/http-kit/upload-client.ts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { energyHarness, type Harness } from './testing/harness.ts';

/** Transport behaviour shared by every endpoint: negotiation, error bodies, body parsing limits. */
describe('transport', () => {
  let h: Harness;
  let token: string;
  before(async () => {
    h = await energyHarness('sqlite');
    ({ token } = await h.user());
  });
  after(() => h?.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    h.app.inject({ url, headers: { authorization: `Bearer ${token}`, ...headers } });

  test('format: extension > format parameter > Accept > JSON', async () => {
    const cases: Array<[string, Record<string, string>, 'json' | 'xml']> = [
      ['/api/v1/roof_types/1', {}, 'json'],
      ['/api/v1/roof_types/1.xml', { accept: 'application/json' }, 'xml'],
      ['/api/v1/roof_types/1.json?format=xml', { accept: 'application/xml' }, 'json'],
      ['/api/v1/roof_types/1?format=xml', { accept: 'application/json' }, 'xml'],
      ['/api/v1/roof_types/1', { accept: 'text/xml' }, 'xml'],
      ['/api/v1/roof_types/1', { accept: 'application/xml;q=0.5, application/json' }, 'json'],
      ['/api/v1/roof_types/1', { accept: '*/*' }, 'json'],
    ];
    for (const [url, headers, format] of cases) {
      const response = await get(url, headers);
      assert.equal(response.statusCode, 200, url);
      assert.equal(
        response.headers['content-type'],
        `application/${format}; charset=utf-8`,
        `${url} ${JSON.stringify(headers)}`,
      );
    }
  });

  test('any other format is 406, with a JSON body', async () => {
    for (const [url, headers] of [
      ['/api/v1/roof_types/1.html', {}],
      ['/api/v1/roof_types?format=csv', {}],
      ['/api/v1/roof_types', { accept: 'text/html' }],
    ] as const) {
      const response = await get(url, headers);
      assert.equal(response.statusCode, 406, url);
      assert.equal(response.json().error.code, 'not_acceptable');
    }
  });

  test('unknown routes and methods are 404 "Unsupported operation" in the requested format', async () => {
    const json = await get('/api/v1/chillers');
    assert.equal(json.statusCode, 404);
    assert.deepEqual(json.json(), { error: { code: 'not_found', message: 'Unsupported operation' } });
    const xml = await h.app.inject({ method: 'DELETE', url: '/api/v1/fan_controls/1.xml' });
    assert.equal(xml.statusCode, 404);
    assert.equal(
      xml.body,
      '<?xml version="1.0" encoding="UTF-8"?>\n<error>\n  <code>not_found</code>\n  <message>Unsupported operation</message>\n</error>\n',
    );
  });

  test('XML attack inputs and malformed bodies are 400; nothing is expanded', async () => {
    const building = await h.app.inject({
      method: 'POST',
      url: `/api/v1/buildings?token=${token}`,
      payload: { name: 'HQ' },
    });
    const url = `/api/v1/buildings/${building.json().id}/operations.xml?token=${token}`;
    const bodies = [
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><operation><name>&x;</name></operation>',
      `<!DOCTYPE r [<!ENTITY a "${'a'.repeat(100)}"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><operation><name>&b;</name></operation>`,
      '<!doctype operation SYSTEM "http://127.0.0.1:1/evil.dtd"><operation/>',
      '<operation><name>unclosed</operation>',
      '<operation><__proto__><admin>1</admin></__proto__></operation>',
    ];
    for (const payload of bodies) {
      const response = await h.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/xml' },
        payload,
      });
      assert.equal(response.statusCode, 400, payload);
      assert.match(response.body, /<code>bad_request<\/code>/);
      assert.ok(!response.body.includes('root:'), 'no file content leaks');
    }
    const list = await get(`/api/v1/buildings/${building.json().id}/operations`);
    assert.equal(list.body, '[]');
    const json = await h.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    assert.equal(json.statusCode, 400);
    const array = await h.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: '[1]',
    });
    assert.equal(array.statusCode, 400);
  });

  test('oversized bodies are 413; other content types 415', async () => {
    const big = await h.app.inject({
      method: 'POST',
      url: `/api/v1/buildings.xml?token=${token}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(big.statusCode, 413);
    assert.match(big.body, /<code>body_too_large<\/code>/);
    const text = await h.app.inject({
      method: 'POST',
      url: `/api/v1/buildings?token=${token}`,
      headers: { 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    assert.equal(text.statusCode, 415);
    assert.equal(text.json().error.code, 'unsupported_media_type');
    assert.match(text.json().error.message, /text\/plain/);
  });

  test('a 20 MB body sent whole before reading: the client reads the 413 and Connection: close, no reset', async () => {
    const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const bodyBytes = 20 * 1024 * 1024;
    for (const chunked of [false, true]) {
      const upload = { path: `/api/v1/buildings.xml?token=${token}`, bodyBytes, chunked };
      const body = answered413(await uploadThenRead(origin, upload), bodyBytes);
      assert.match(body, /<code>body_too_large<\/code>/);
    }
  });

  test('the OpenAPI document shows both formats with examples', async () => {
    const document = (await h.app.inject({ url: '/openapi.json' })).json();
    const show = document.paths['/api/v1/operations/{id}'].get.responses['200'].content;
    assert.match(show['application/xml'].example, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<operation>/);
    assert.equal(show['application/json'].example.misc_electric_load, 1.5);
    const create = document.paths['/api/v1/buildings/{building_id}/operations'].post;
    assert.deepEqual(Object.keys(create.requestBody.content).sort(), [
      'application/json',
      'application/x-www-form-urlencoded',
      'application/xml',
    ]);
    assert.match(
      create.requestBody.content['application/xml'].example,
      /<weekday-open-time type="string">0800</,
    );
    assert.ok(create.responses['422'].content['application/xml'].example.includes('<errors>'));
    assert.equal((await h.app.inject({ url: '/docs/' })).statusCode, 200);
    const result = await new Validator().validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });
});

describe('server faults', () => {
  test('500 with a body in the requested format and no internals', async () => {
    const h = await energyHarness('sqlite');
    const { token } = await h.user();
    await h.db.destroy();
    try {
      const json = await h.app.inject({ url: `/api/v1/fan_controls?token=${token}` });
      assert.equal(json.statusCode, 500);
      assert.deepEqual(json.json(), { error: { code: 'internal', message: 'Internal server error.' } });
      const xml = await h.app.inject({ url: `/api/v1/fan_controls.xml?token=${token}` });
      assert.equal(xml.statusCode, 500);
      assert.match(xml.body, /<message>Internal server error.<\/message>/);
      assert.ok(!/at |sqlite|kysely/i.test(xml.body));
    } finally {
      await h.close();
    }
  });
});
