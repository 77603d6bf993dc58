import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GoogleGenAI, type GoogleGenAIOptions } from '@google/genai';
import { OAuth2Client } from 'google-auth-library';
import { type Simulator, startSimulator } from '../server.ts';
import { googleAccessToken, refusal } from '../testing.ts';

/** The simulated Gemini and Vertex embeddings, driven by @google/genai (models.embedContent). */
let sim: Simulator;
let gemini: GoogleGenAI;
before(async () => {
  sim = await startSimulator();
  gemini = new GoogleGenAI({
    apiKey: sim.credentials.geminiKey,
    httpOptions: { baseUrl: `${sim.url}/gemini`, apiVersion: 'v1beta' },
  });
});
after(() => sim.close());

const norm = (vector: readonly number[]) => Math.hypot(...vector);

describe('simulated Gemini API embeddings (driven by @google/genai)', () => {
  test('one content: batchEmbedContents of one, a unit vector of 3072', async () => {
    const answer = await gemini.models.embedContent({
      model: 'gemini-embedding-001',
      contents: 'hello there',
    });
    assert.match(sim.received.at(-1)?.path ?? '', /models\/gemini-embedding-001:batchEmbedContents$/);
    const values = answer.embeddings?.[0]?.values ?? [];
    assert.equal(values.length, 3072);
    assert.ok(Math.abs(norm(values) - 1) < 1e-9);
  });

  test('several contents: one vector each, in order; the same text the same vector', async () => {
    const answer = await gemini.models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['alpha', 'beta', 'alpha'],
      config: { outputDimensionality: 768, taskType: 'RETRIEVAL_DOCUMENT' },
    });
    const vectors = (answer.embeddings ?? []).map((embedding) => embedding.values ?? []);
    assert.deepEqual(
      vectors.map((vector) => vector.length),
      [768, 768, 768],
    );
    assert.deepEqual(vectors[0], vectors[2]);
    assert.notDeepEqual(vectors[0], vectors[1]);
    assert.ok(Math.abs(norm(vectors[1] ?? []) - 1) < 1e-9);
  });

  test('more than 100 contents, an unknown task type, a bad key: refused as Google does', async () => {
    const many = Array.from({ length: 101 }, (_, index) => `text ${index}`);
    const tooMany = await refusal(
      gemini.models.embedContent({ model: 'gemini-embedding-001', contents: many }),
    );
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.message, /at most 100 requests can be in one batch/);
    const task = await refusal(
      gemini.models.embedContent({
        model: 'gemini-embedding-001',
        contents: 'x',
        config: { taskType: 'SUMMARY' },
      }),
    );
    assert.equal(task.status, 400);
    const badKey = new GoogleGenAI({
      apiKey: 'AIzaWrong',
      httpOptions: { baseUrl: `${sim.url}/gemini`, apiVersion: 'v1beta' },
    });
    const key = await refusal(badKey.models.embedContent({ model: 'gemini-embedding-001', contents: 'x' }));
    assert.match(key.message, /API key not valid/);
  });

  test('embedContent of one content, and the usage the batch answer reports', async () => {
    const response = await fetch(`${sim.url}/gemini/v1beta/models/gemini-embedding-001:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': sim.credentials.geminiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: 'twelve chars' }] }, outputDimensionality: 8 }),
    });
    const body = (await response.json()) as { embedding: { values: number[] }; usageMetadata: unknown };
    assert.equal(body.embedding.values.length, 8);
    assert.deepEqual(body.usageMetadata, { promptTokenCount: 3 });
  });
});

const accessToken = () => googleAccessToken(sim);

type SdkAuthClient = NonNullable<GoogleGenAIOptions['googleAuthOptions']>['authClient'];

/** As in gemini.test.ts: the token is fetched here and handed to the SDK in an OAuth2 client. */
function vertex(token: string): GoogleGenAI {
  const oauth = new OAuth2Client();
  oauth.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  return new GoogleGenAI({
    vertexai: true,
    project: 'sim-project',
    location: 'us-central1',
    googleAuthOptions: { authClient: oauth as unknown as SdkAuthClient },
    httpOptions: { baseUrl: `${sim.url}/vertex`, apiVersion: 'v1' },
  });
}

describe('simulated Vertex AI embeddings (driven by @google/genai)', () => {
  test('gemini-embedding-001, one content: predict with its token count', async () => {
    const client = vertex(await accessToken());
    const answer = await client.models.embedContent({
      model: 'gemini-embedding-001',
      contents: 'hello there',
      config: { outputDimensionality: 256 },
    });
    assert.match(
      sim.received.at(-1)?.path ?? '',
      /^\/vertex\/v1\/projects\/sim-project\/locations\/us-central1\/publishers\/google\/models\/gemini-embedding-001:predict$/,
    );
    const embedding = answer.embeddings?.[0];
    assert.equal(embedding?.values?.length, 256);
    assert.ok(Math.abs(norm(embedding?.values ?? []) - 1) < 1e-9);
    assert.deepEqual(embedding?.statistics, { truncated: false, tokenCount: 3 });
  });

  test('the same text gives the same vector on Vertex as on the Gemini API', async () => {
    const onVertex = await vertex(await accessToken()).models.embedContent({
      model: 'gemini-embedding-001',
      contents: 'same',
    });
    const onGemini = await gemini.models.embedContent({ model: 'gemini-embedding-001', contents: 'same' });
    assert.deepEqual(onVertex.embeddings?.[0]?.values, onGemini.embeddings?.[0]?.values);
  });

  test('several contents: refused for gemini-embedding-001 (one instance a call), answered by text-embedding-005', async () => {
    const client = vertex(await accessToken());
    const refused = await refusal(
      client.models.embedContent({ model: 'gemini-embedding-001', contents: ['a', 'b'] }),
    );
    assert.equal(refused.status, 400);
    assert.match(refused.message, /supports only one instance per request/);
    const answer = await client.models.embedContent({
      model: 'text-embedding-005',
      contents: ['a', 'b', 'a'],
    });
    const vectors = (answer.embeddings ?? []).map((embedding) => embedding.values ?? []);
    assert.deepEqual(
      vectors.map((vector) => vector.length),
      [768, 768, 768],
    );
    assert.deepEqual(vectors[0], vectors[2]);
  });

  test('over 2048 tokens: truncated by default, a 400 with autoTruncate false; no token, 401', async () => {
    const client = vertex(await accessToken());
    const long = 'word '.repeat(2000);
    const truncated = await client.models.embedContent({ model: 'gemini-embedding-001', contents: long });
    assert.deepEqual(truncated.embeddings?.[0]?.statistics, { truncated: true, tokenCount: 2048 });
    const refused = await refusal(
      client.models.embedContent({
        model: 'gemini-embedding-001',
        contents: long,
        config: { autoTruncate: false },
      }),
    );
    assert.equal(refused.status, 400);
    assert.match(refused.message, /input token count is 2500 but the model supports up to 2048/);
    assert.equal(
      (
        await refusal(
          vertex('ya29.forged').models.embedContent({ model: 'gemini-embedding-001', contents: 'x' }),
        )
      ).status,
      401,
    );
  });
});
