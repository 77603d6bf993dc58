/**
 * The simulated GCE metadata server, driven by google-auth-library's application default
 * credentials. The library finds the server through process.env (GCE_METADATA_HOST) only, so
 * this file sets it for the whole run (node runs each test file in its own process).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GoogleAuth } from 'google-auth-library';
import { type Simulator, startSimulator } from '../server.ts';

let sim: Simulator;
const gcloud = mkdtempSync(join(tmpdir(), 'sim-gcloud-'));
before(async () => {
  sim = await startSimulator();
  delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
  process.env.CLOUDSDK_CONFIG = gcloud;
  // Named, so that the library does not ask the gcloud command (if installed) for a project.
  process.env.GOOGLE_CLOUD_PROJECT = 'sim-project';
  process.env.GCE_METADATA_HOST = sim.url.replace('http://', '');
});
after(async () => {
  await sim.close();
  rmSync(gcloud, { recursive: true, force: true });
});

const vertexCall = (token: string) =>
  fetch(
    `${sim.url}/vertex/v1/projects/sim-project/locations/global/publishers/google/models/gemini-2.5-flash:generateContent`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] }),
    },
  );

describe('simulated GCE metadata server', () => {
  test('application default credentials find it, and Vertex accepts the token it issues', async () => {
    const auth = new GoogleAuth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
    const token = await auth.getAccessToken();
    assert.match(token ?? '', /^ya29\.sim-gce-/);
    assert.equal((await vertexCall(token ?? '')).status, 200);
    assert.equal((await vertexCall('ya29.sim-gce-forged')).status, 401);
    assert.equal(
      sim.received.at(-1)?.path.includes(':generateContent'),
      true,
      'metadata calls are not recorded',
    );
  });

  test('answers only requests with Metadata-Flavor: Google, and refuses scopes without cloud-platform', async () => {
    const base = `${sim.url}/computeMetadata/v1/instance/service-accounts/default/token`;
    const bare = await fetch(base);
    assert.equal(bare.status, 403);
    assert.equal(bare.headers.get('metadata-flavor'), 'Google');
    const narrow = await fetch(`${base}?scopes=https://www.googleapis.com/auth/userinfo.email`, {
      headers: { 'metadata-flavor': 'Google' },
    });
    assert.equal(narrow.status, 400);
    const flavor = { headers: { 'metadata-flavor': 'Google' } };
    const project = await fetch(`${sim.url}/computeMetadata/v1/project/project-id`, flavor);
    assert.equal(await project.text(), 'sim-project');
    assert.equal((await fetch(`${sim.url}/computeMetadata/v1/instance/zone`, flavor)).status, 404);
  });
});
