import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { type Simulator, startSimulator } from '../server.ts';

/** The simulated InvokeModel of Bedrock's embedding models, driven by the AWS SDK v3. */
let sim: Simulator;
let client: BedrockRuntimeClient;
const TITAN = 'amazon.titan-embed-text-v2:0';
const COHERE = 'cohere.embed-english-v3';

function makeClient(secret?: string): BedrockRuntimeClient {
  const { accessKeyId, secretAccessKey, region } = sim.credentials.aws;
  return new BedrockRuntimeClient({
    region,
    endpoint: `${sim.url}/bedrock`,
    credentials: { accessKeyId, secretAccessKey: secret ?? secretAccessKey },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
}

before(async () => {
  sim = await startSimulator();
  client = makeClient();
});
after(() => sim.close());

const norm = (vector: readonly number[]) => Math.hypot(...vector);

async function invoke(modelId: string, body: unknown, using = client) {
  const answer = await using.send(
    new InvokeModelCommand({
      modelId,
      contentType: 'application/json',
      accept: 'application/json',
      body: JSON.stringify(body),
    }),
  );
  return JSON.parse(new TextDecoder().decode(answer.body)) as Record<string, unknown>;
}

async function refusal(call: Promise<unknown>): Promise<{ name: string; message: string; status: number }> {
  try {
    await call;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
    return { name: (error as Error).name, message: (error as Error).message, status };
  }
  assert.fail('the call was not refused');
}

describe('simulated Bedrock Titan Text Embeddings V2 (InvokeModelCommand)', () => {
  test('one text: a unit vector of the asked dimensions, its tokens in the body and the header', async () => {
    const body = await invoke(TITAN, { inputText: 'hello bedrock', dimensions: 512, normalize: true });
    const embedding = body.embedding as number[];
    assert.equal(embedding.length, 512);
    assert.ok(Math.abs(norm(embedding) - 1) < 1e-9);
    assert.equal(body.inputTextTokenCount, 4);
    assert.deepEqual((body.embeddingsByType as { float: number[] }).float, embedding);
    assert.equal(sim.received.at(-1)?.usage?.prompt_tokens, 4);
    const again = await invoke(TITAN, { inputText: 'hello bedrock', dimensions: 512 });
    assert.deepEqual(again.embedding, embedding);
  });

  test('refuses as Bedrock does: dimensions, unknown keys, a wrong signature', async () => {
    const dims = await refusal(invoke(TITAN, { inputText: 'x', dimensions: 300 }));
    assert.deepEqual([dims.name, dims.status], ['ValidationException', 400]);
    assert.match(dims.message, /#\/dimensions: 300 is not a valid enum value/);
    const extra = await refusal(invoke(TITAN, { inputText: 'x', texts: ['y'] }));
    assert.match(extra.message, /extraneous key \[texts\] is not permitted/);
    const forged = await refusal(
      invoke(TITAN, { inputText: 'x' }, makeClient('wrong-secret-wrong-secret-wrong-secret12')),
    );
    assert.deepEqual([forged.name, forged.status], ['InvalidSignatureException', 403]);
  });
});

describe('simulated Bedrock Cohere Embed v3 (InvokeModelCommand)', () => {
  test('texts: one 1024 vector each, in order; by type when asked', async () => {
    const body = await invoke(COHERE, { texts: ['first', 'second', 'first'], input_type: 'search_document' });
    assert.equal(body.response_type, 'embeddings_floats');
    const vectors = body.embeddings as number[][];
    assert.deepEqual(
      vectors.map((vector) => vector.length),
      [1024, 1024, 1024],
    );
    assert.deepEqual(vectors[0], vectors[2]);
    assert.deepEqual(body.texts, ['first', 'second', 'first']);
    const typed = await invoke(COHERE, {
      texts: ['first'],
      input_type: 'search_query',
      embedding_types: ['float', 'int8'],
    });
    assert.equal(typed.response_type, 'embeddings_by_type');
    const byType = typed.embeddings as { float: number[][]; int8: number[][] };
    assert.deepEqual(byType.float[0], vectors[0]);
    assert.equal(byType.int8[0]?.length, 1024);
  });

  test('refuses 97 texts, a missing input_type and a text over 2048 characters', async () => {
    const texts = Array.from({ length: 97 }, (_, index) => `t${index}`);
    assert.match(
      (await refusal(invoke(COHERE, { texts, input_type: 'search_document' }))).message,
      /maxItems: 96/,
    );
    assert.match((await refusal(invoke(COHERE, { texts: ['a'] }))).message, /required key \[input_type\]/);
    const long = await refusal(invoke(COHERE, { texts: ['x'.repeat(2049)], input_type: 'clustering' }));
    assert.match(long.message, /#\/texts\/0: expected maxLength: 2048, actual: 2049/);
  });
});
