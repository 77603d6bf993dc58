import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ChatTestApp, startChatApp } from './front-doors/chat-completions/testing.ts';

let gateway: ChatTestApp;
before(async () => {
  gateway = await startChatApp();
});
after(() => gateway.close());

test('the OpenAPI document names each path as clients call it: no trailing slash', async () => {
  const spec = (await gateway.app.inject({ url: '/openapi.json' })).json() as {
    paths: Record<string, unknown>;
  };
  const paths = Object.keys(spec.paths);
  assert.ok(paths.includes('/v1/messages'), `no /v1/messages in ${paths.join(', ')}`);
  assert.deepEqual(
    paths.filter((path) => path.length > 1 && path.endsWith('/')),
    [],
  );
});
