/**
 * The gateway's OpenAPI document tells the truth: every request example in it is executed
 * against the embedded default with a real token and answers 2xx with a body valid against the
 * declared schema; every response example is valid against its own schema; every code of the
 * error catalogue is documented on the chat route; and the docs page's Execute button works in
 * headless Chromium.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ADMIN_API_ERROR_CODES, gatewayErrors } from '../packages/gateway/src/errors.ts';
import { OPTION_HEADERS as DOCUMENTED } from '../packages/gateway/src/front-doors/chat-completions/openapi.ts';
import { OPTION_HEADERS } from '../packages/gateway/src/routing/resolve.ts';
import { browserSkipReason, launchChromium } from './browser.ts';
import { type EmbeddedDefault, startEmbeddedDefault } from './embedded-default.ts';

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  parameters?: Array<{ in: string; name: string; example?: unknown }>;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media>; headers?: Record<string, unknown> }>;
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

describe('the gateway OpenAPI document against the embedded default', () => {
  let running: EmbeddedDefault;
  let document: Json & { paths: Record<string, Record<string, Operation>> };
  let token: string;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

  before(async () => {
    running = await startEmbeddedDefault();
    token = running.gatewayToken();
    document = (await (await fetch(`${running.gatewayUrl}/openapi.json`)).json()) as typeof document;
    ajv.addSchema({ ...document, $id: 'openapi.json' });
  });
  after(() => running.close());

  const validatorFor = (path: string, method: string, status: string, type: string) =>
    ajv.getSchema(
      `openapi.json#/${pointer('paths', path, method, 'responses', status, 'content', type, 'schema')}`,
    ) ?? assert.fail(`no schema for ${method} ${path} ${status} ${type}`);

  function* operations(): Generator<[string, string, Operation]> {
    for (const [path, methods] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(methods)) yield [path, method, operation];
  }

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  it('documents every error code of the model API on the chat route, each with an example', () => {
    const responses = document.paths['/v1/chat/completions']?.post?.responses ?? {};
    for (const [code, definition] of Object.entries(gatewayErrors.catalogue)) {
      // The admin API's own codes are documented on its routes (admin-api/openapi.test.ts).
      if (ADMIN_API_ERROR_CODES.includes(code)) continue;
      const examples = responses[String(definition.status)]?.content?.['application/json']?.examples ?? {};
      const example = examples[code]?.value as { error?: { code?: string; message?: string } } | undefined;
      assert.equal(example?.error?.code, code, `${definition.status} ${code}`);
      assert.ok(example?.error?.message && !example.error.message.includes('undefined'), code);
    }
    assert.deepEqual(DOCUMENTED, OPTION_HEADERS, 'the documented option headers are the ones routing reads');
  });

  it('every response example is valid against its schema', () => {
    let checked = 0;
    for (const [path, method, operation] of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (!media.schema) continue;
          const validate = validatorFor(path, method, status, type);
          const values = [
            ...(media.example === undefined ? [] : [media.example]),
            ...Object.values(media.examples ?? {}).map((e) => e.value),
          ];
          for (const value of values) {
            assert.ok(validate(value), `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}`);
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 20, `${checked} response examples`);
  });

  it('every request example answers 2xx with a body valid against the declared schema', async () => {
    let executed = 0;
    for (const [path, method, operation] of operations()) {
      if (!path.startsWith('/v1/')) continue;
      const bodies = Object.entries(operation.requestBody?.content['application/json']?.examples ?? {});
      assert.ok(
        !operation.requestBody || bodies.length > 0,
        `${method} ${path} takes a body but documents no named example to run (config.bodyExamples)`,
      );
      const cases = bodies.length > 0 ? bodies : [['(no body)', { value: undefined }] as const];
      // Each example alone, and again with every documented header parameter at its example.
      for (const [name, { value }, withHeaders] of cases.flatMap(([n, v]) => [
        [n, v, false] as const,
        [n, v, true] as const,
      ])) {
        let url = path;
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, String(parameter.example));
          if (parameter.in === 'header' && withHeaders) headers[parameter.name] = String(parameter.example);
        }
        if (value !== undefined) headers['content-type'] = 'application/json';
        const response = await fetch(`${running.gatewayUrl}${url}`, {
          method: method.toUpperCase(),
          headers,
          ...(value === undefined ? {} : { body: JSON.stringify(value) }),
        });
        const text = await response.text();
        const label = `${method} ${path} example ${name}${withHeaders ? ' with header examples' : ''}`;
        assert.ok(response.status >= 200 && response.status < 300, `${label}: ${response.status} ${text}`);
        const type = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
        const declared = operation.responses[String(response.status)]?.content?.[type];
        assert.ok(declared, `${label}: ${type} is not declared for ${response.status}`);
        if (type === 'application/json') {
          const validate = validatorFor(path, method, String(response.status), type);
          assert.ok(validate(JSON.parse(text)), `${label}: ${ajv.errorsText(validate.errors)}`);
        } else {
          // Server-Sent Events of the route's API: JSON payloads (OpenAI ends with [DONE]), no error event.
          const payloads = text
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6));
          assert.ok(payloads.length > 1, `${label}: ${text}`);
          for (const payload of payloads) if (payload !== '[DONE]') JSON.parse(payload);
          assert.doesNotMatch(text, /^(event: error|data: \{"error")/m, label);
        }
        if (path === '/v1/chat/completions') assert.ok(response.headers.get('x-gateway-applied'), label);
        executed++;
      }
    }
    assert.ok(executed >= 6, `${executed} examples executed`);
  });

  it(
    'the docs page: Authorize with a token, Execute the chat example, see a 200 with a completion',
    { skip: browserSkipReason() },
    async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${running.gatewayUrl}/docs`);
        await page.locator('.swagger-ui .btn.authorize').first().click();
        await page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill(token);
        await page.locator('.modal-ux button.authorize').first().click();
        await page.locator('.modal-ux button.btn-done').first().click();
        const operation = page.locator('#operations-chat-post_v1_chat_completions');
        await operation.locator('.opblock-summary').click();
        // The page opens operations in "Try it out" mode; the default example body is filled in.
        await operation.locator('button.execute').click();
        const status = operation.locator(
          '.responses-table.live-responses-table .response .response-col_status',
        );
        await status.first().waitFor({ timeout: 20_000 });
        assert.equal((await status.first().innerText()).trim(), '200');
        const body = await operation
          .locator('.live-responses-table .response-col_description pre')
          .first()
          .innerText();
        assert.match(body, /"object": "chat.completion"/);
        assert.match(body, /Simulated reply to/);
      } finally {
        await browser.close();
      }
    },
  );
});
