/**
 * Ambient credentials through HTTP: a gateway whose upstreams file reaches Vertex with
 * `google-adc` answers chat calls, the token coming from the simulator's GCE metadata server
 * (found through GCE_METADATA_HOST, which google-auth-library reads from process.env only).
 * When no credential can be found, the caller gets a 502 and the log names the signer only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp } from '../../front-doors/chat-completions/testing.ts';
import { DEFAULT_UPSTREAMS_PATH, readJsonFile } from '../../routing/index.ts';
import { withProcessEnv } from './test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'ambient-http-'));

/** The bundled simulated upstreams with both Vertex endpoints on application default credentials. */
function upstreamsWithAdc(): string {
  const file = readJsonFile(DEFAULT_UPSTREAMS_PATH) as {
    providers: { cloud_b: { vendors: Record<string, { auth: unknown }> } };
  };
  for (const endpoint of Object.values(file.providers.cloud_b.vendors))
    endpoint.auth = { type: 'google-adc' };
  const path = join(dir, 'upstreams.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}

describe('google-adc through the gateway', () => {
  let t: ChatTestApp;
  const logs: string[] = [];
  before(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
    t = await startChatApp({ routing: { upstreamsPath: upstreamsWithAdc() }, logStream });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const chat = (model: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: { model, messages: [{ role: 'user', content: 'Hello' }] },
    });
  /** No key file, no gcloud sign-in: only the metadata server (or nothing) is found. */
  const isolated = { CLOUDSDK_CONFIG: dir };

  test('no credential anywhere: 502 upstream_error, logged by signer kind without a token', async () => {
    // First, before any token is cached: the environment offers no credential at all.
    await withProcessEnv({ ...isolated, METADATA_SERVER_DETECTION: 'none' }, async () => {
      const response = await chat('gemini-2.5-pro@cloud_b');
      assert.equal(response.statusCode, 502, response.body);
      const { error } = response.json();
      assert.equal(error.code, 'upstream_error');
      assert.match(error.message, /the gateway could not obtain its credentials for the provider/);
    });
    const line = logs.find((entry) => entry.includes('upstream credentials unavailable')) ?? '';
    assert.match(line, /"signer":"google-adc"/);
    assert.match(line, /google-adc \(application default credentials\): no access token could be obtained/);
    assert.ok(!logs.join('').includes('ya29.'), 'no access token is ever logged');
  });

  test('then Claude and Gemini on Vertex answer with a token from the metadata server', async () => {
    // The same signer looks again after a failure: the metadata server is found now.
    await withProcessEnv({ ...isolated, GCE_METADATA_HOST: t.sim.url.replace('http://', '') }, async () => {
      for (const [model, path] of [
        ['claude-sonnet@cloud_b', /\/publishers\/anthropic\/models\/claude-sonnet-4-6:rawPredict$/],
        ['gemini-2.5-flash@cloud_b', /\/publishers\/google\/models\/gemini-2\.5-flash:generateContent$/],
      ] as const) {
        const response = await chat(model);
        assert.equal(response.statusCode, 200, response.body);
        assert.match(response.json().choices[0].message.content, /^Simulated reply/);
        const sent = t.sim.received.at(-1);
        assert.match(sent?.path ?? '', path);
        assert.match(String(sent?.headers.authorization), /^Bearer ya29\.sim-gce-/);
      }
    });
  });
});
