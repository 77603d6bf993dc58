/** Every model-name and option-header rule of the spec, as a client meets it: over HTTP. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp } from './testing.ts';

const messages = [{ role: 'user', content: 'hi' }];

describe('model names and option headers on POST /v1/chat/completions', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp();
  });
  after(() => t.close());

  async function post(model: string, headers: Record<string, string> = {}) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(headers),
      payload: { model, messages },
    });
    return {
      status: response.statusCode,
      applied: String(response.headers['x-gateway-applied']),
      ignored: response.headers['x-gateway-ignored'],
      error:
        response.statusCode >= 400 ? (response.json().error as { code: string; message: string }) : undefined,
      sent: t.lastUpstreamBody(),
    };
  }

  test('an alias resolves to the newest version of its family; an exact version stays put', async () => {
    assert.match((await post('gpt')).applied, /^model="gpt-5.6-sol"/);
    assert.match(
      (await post('claude-sonnet@cloud_b')).applied,
      /^model="claude-sonnet-4-6", provider=cloud_b/,
    );
    assert.match((await post('gpt-5.4-2026-03-05')).applied, /^model="gpt-5.4-2026-03-05"/);
  });

  test('a modifier wins over the matching header; a header applies when there is no modifier', async () => {
    const modifier = await post('gpt-5.4:high@developer', { 'x-gateway-effort': 'low' });
    assert.match(modifier.applied, /effort=high/);
    assert.equal(modifier.sent.reasoning_effort, 'high');
    const header = await post('gpt-5.4@developer', {
      'x-gateway-effort': 'low',
      'x-gateway-service-tier': 'flex',
    });
    assert.match(header.applied, /effort=low, tier=flex/);
    assert.deepEqual([header.sent.reasoning_effort, header.sent.service_tier], ['low', 'flex']);
  });

  test('a header value the model cannot use, or an unknown one, is ignored and reported', async () => {
    const unusable = await post('gpt-5.4@developer', { 'x-gateway-effort': 'minimal' });
    assert.equal(unusable.status, 200);
    assert.match(unusable.applied, /effort=none/);
    assert.equal(unusable.ignored, 'effort=minimal');
    const unknown = await post('gpt-5.4@developer', {
      'x-gateway-effort': 'turbo',
      'x-gateway-compression': 'squeeze',
    });
    assert.equal(unknown.status, 200);
    assert.equal(unknown.ignored, 'effort=turbo, compression=squeeze');
    const noFlex = await post('gpt-5.4@cloud_c', { 'x-gateway-service-tier': 'flex' });
    assert.match(noFlex.applied, /provider=cloud_c, effort=none, tier=standard/);
    assert.equal(noFlex.ignored, 'tier=flex');
    assert.equal('service_tier' in noFlex.sent, false);
  });

  test('standard tier and compression off are the defaults, also when asked for; :nocompress means off', async () => {
    const asked = await post('gpt-5.4@developer', {
      'x-gateway-service-tier': 'standard',
      'x-gateway-compression': 'off',
    });
    assert.match(asked.applied, /tier=standard, compression=off$/);
    assert.equal(asked.ignored, undefined);
    assert.match((await post('gpt-5.4:nocompress@developer')).applied, /compression=off$/);
  });

  test('invalid modifiers are 400 gateway_invalid_model_modifier naming the modifier and the accepted values', async () => {
    for (const model of [
      'gpt-5.4:turbo',
      'gpt-5.4:high:low',
      'gpt-5.4:minimal',
      'gpt-5.4:flex@cloud_c',
      'gpt-5.4:compact:compressed',
    ]) {
      const response = await post(model);
      assert.equal(response.status, 400, model);
      assert.equal(response.error?.code, 'gateway_invalid_model_modifier', model);
    }
    const unknown = await post('gpt-5.4:turbo');
    assert.match(unknown.error?.message ?? '', /turbo/);
    assert.match(unknown.error?.message ?? '', /high/, 'lists accepted values');
  });

  test('providers: suffix, header, suffix over header, unknown suffix 400, unknown header ignored', async () => {
    assert.match((await post('gpt-5.4@cloud_c')).applied, /provider=cloud_c/);
    assert.match((await post('gpt-5.4', { 'x-gateway-provider': 'cloud_c' })).applied, /provider=cloud_c/);
    assert.match(
      (await post('gpt-5.4@developer', { 'x-gateway-provider': 'cloud_c' })).applied,
      /provider=developer/,
    );
    const bad = await post('gpt-5.4@cloud_z');
    assert.deepEqual([bad.status, bad.error?.code], [400, 'gateway_invalid_provider']);
    const ignored = await post('gpt-5.4', { 'x-gateway-provider': 'cloud_z' });
    assert.equal(ignored.status, 200);
    assert.equal(ignored.ignored, 'provider=cloud_z');
  });

  test('an unknown model is 404 model_not_found', async () => {
    const response = await post('gpt-0');
    assert.deepEqual([response.status, response.error?.code], [404, 'model_not_found']);
  });
});
