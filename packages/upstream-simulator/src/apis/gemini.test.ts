import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type Content,
  GoogleGenAI,
  type GoogleGenAIOptions,
  ServiceTier,
  ThinkingLevel,
} from '@google/genai';
import { OAuth2Client } from 'google-auth-library';
import { googleAccessToken, refusal } from '../testing.ts';
import { type Simulator, startSimulator } from '../server.ts';

let sim: Simulator;
let gemini: GoogleGenAI;
const question = 'What is the capital of France?';
const cityTool = (name: string) => ({
  name,
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

before(async () => {
  sim = await startSimulator();
  gemini = client(sim.credentials.geminiKey);
});
after(() => sim.close());

function client(apiKey: string): GoogleGenAI {
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl: `${sim.url}/gemini`, apiVersion: 'v1beta' } });
}

async function raw(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': sim.credentials.geminiKey, ...headers },
    body: JSON.stringify(body),
  });
}

describe('simulated Gemini API (driven by @google/genai)', () => {
  test('generateContent answers text with Google usage metadata', async () => {
    const response = await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: question });
    assert.match(response.text ?? '', /^Simulated reply to "What is the":/);
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    const usage = response.usageMetadata;
    assert.equal(usage?.candidatesTokenCount, 16);
    assert.equal(usage?.thoughtsTokenCount, 16, '2.5 models think by default');
    assert.equal(usage?.totalTokenCount, (usage?.promptTokenCount ?? 0) + 32);
    assert.equal(usage?.trafficType, 'ON_DEMAND');
  });

  test('generateContentStream sends the same text in pieces, usage on the last chunk', async () => {
    const whole = await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: question });
    const stream = await gemini.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: question,
    });
    const pieces: string[] = [];
    const usages: unknown[] = [];
    for await (const chunk of stream) {
      pieces.push(chunk.text ?? '');
      if (chunk.usageMetadata) usages.push(chunk.usageMetadata);
    }
    assert.equal(pieces.length, 16);
    assert.equal(pieces.join(''), whole.text);
    assert.deepEqual(usages, [whole.usageMetadata]);
  });

  test('Gemini 3 function calls carry a thought signature that must come back', async () => {
    const model = 'gemini-3.1-pro-preview';
    const tools = [{ functionDeclarations: [cityTool('get_weather'), cityTool('get_time')] }];
    const asked: Content = { role: 'user', parts: [{ text: 'Use get_weather and get_time in Paris' }] };
    const first = await gemini.models.generateContent({ model, contents: [asked], config: { tools } });
    const calls = first.functionCalls ?? [];
    assert.deepEqual(
      calls.map((call) => [call.name, call.args]),
      [
        ['get_weather', { city: 'Paris' }],
        ['get_time', { city: 'Paris' }],
      ],
    );
    const modelTurn = first.candidates?.[0]?.content;
    assert.ok(modelTurn?.parts?.[0]?.thoughtSignature, 'the first call is signed');
    assert.equal(modelTurn.parts[1]?.thoughtSignature, undefined, 'parallel calls share the first signature');
    const results: Content = {
      role: 'user',
      parts: calls.map((call) => ({
        functionResponse: { name: call.name, response: { output: 'sunny, 14:00' } },
      })),
    };
    const answer = await gemini.models.generateContent({
      model,
      contents: [asked, modelTurn, results],
      config: { tools },
    });
    assert.match(answer.text ?? '', /^The tool returned:/);
    const unsigned = { ...modelTurn, parts: modelTurn.parts.map(({ thoughtSignature: _, ...part }) => part) };
    const refused = await refusal(
      gemini.models.generateContent({ model, contents: [asked, unsigned, results], config: { tools } }),
    );
    assert.equal(refused.status, 400);
    assert.match(refused.message, /thought_signature/);
  });

  test('thinkingConfig: levels and budgets per model, never both', async () => {
    const thoughts = async (model: string, thinkingConfig: object) =>
      (await gemini.models.generateContent({ model, contents: question, config: { thinkingConfig } }))
        .usageMetadata?.thoughtsTokenCount;
    assert.equal(await thoughts('gemini-3.5-flash', { thinkingLevel: ThinkingLevel.LOW }), 8);
    assert.equal(await thoughts('gemini-3.5-flash', { thinkingLevel: ThinkingLevel.MINIMAL }), 4);
    assert.equal(await thoughts('gemini-2.5-flash', { thinkingBudget: 0 }), undefined);
    assert.equal(await thoughts('gemini-2.5-pro', { thinkingBudget: 32768 }), 32);
    const refusals = [
      ['gemini-2.5-pro', { thinkingBudget: 0 }],
      ['gemini-2.5-flash', { thinkingBudget: 30000 }],
      ['gemini-2.5-flash', { thinkingLevel: ThinkingLevel.LOW }],
      ['gemini-3.1-pro-preview', { thinkingLevel: ThinkingLevel.MINIMAL }],
      ['gemini-3.5-flash', { thinkingLevel: ThinkingLevel.LOW, thinkingBudget: 1024 }],
    ] as const;
    for (const [model, config] of refusals) {
      const { status } = await refusal(thoughts(model, config));
      assert.equal(status, 400, `${model} ${JSON.stringify(config)}`);
    }
  });

  test('flex is served when asked in the body and reported as ON_DEMAND_FLEX', async () => {
    const response = await gemini.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: question,
      config: { serviceTier: ServiceTier.FLEX },
    });
    assert.equal(response.usageMetadata?.trafficType, 'ON_DEMAND_FLEX');
  });

  test('googleSearch grounds the answer', async () => {
    const response = await gemini.models.generateContent({
      model: 'gemini-3.5-flash',
      contents: question,
      config: { tools: [{ googleSearch: {} }] },
    });
    const grounding = response.candidates?.[0]?.groundingMetadata;
    assert.deepEqual(grounding?.webSearchQueries, [question]);
    assert.equal(grounding?.groundingChunks?.[0]?.web?.uri, 'https://example.org/simulated-source');
  });

  test('a wrong key, an unknown model and an unknown field are refused as Google refuses them', async () => {
    const badKey = await refusal(
      client('AIzaWrong').models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }),
    );
    assert.deepEqual([badKey.status, /API key not valid/.test(badKey.message)], [400, true]);
    const unknown = await refusal(gemini.models.generateContent({ model: 'gemini-9-ultra', contents: 'x' }));
    assert.equal(unknown.status, 404);
    const field = await raw('/gemini/v1beta/models/gemini-2.5-flash:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      x_simulator: { fail_status: 500 },
    });
    assert.equal(field.status, 400);
    assert.match(
      ((await field.json()) as { error: { message: string } }).error.message,
      /Unknown name "x_simulator"/,
    );
  });

  test('faults come from x-sim-* headers, in Google error envelopes and stream events', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: question }] }] };
    const limited = await raw('/gemini/v1beta/models/gemini-2.5-flash:generateContent', body, {
      'x-sim-fail-status': '429',
      'x-sim-retry-after': '7',
    });
    assert.equal(limited.status, 429);
    const error = (
      (await limited.json()) as { error: { status: string; details: Array<{ retryDelay?: string }> } }
    ).error;
    assert.equal(error.status, 'RESOURCE_EXHAUSTED');
    assert.equal(error.details[0]?.retryDelay, '7s');
    const stream = await raw('/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', body, {
      'x-sim-fail-after-tokens': '2',
    });
    const events = (await stream.text()).split('\r\n\r\n').filter(Boolean);
    assert.equal(events.length, 3);
    assert.match(events[2] ?? '', /^data: \{"error":\{"code":500/);
  });
});

const accessToken = () => googleAccessToken(sim);

type SdkAuthClient = NonNullable<GoogleGenAIOptions['googleAuthOptions']>['authClient'];

/**
 * google-auth-library always posts assertions to Google's own token endpoint (providers.md
 * section 0), so the token is fetched here and handed to the SDK in an OAuth2 client. The
 * SDK bundles its own major version of the library; the client is the same at run time, only
 * the declared types differ, hence the cast.
 */
function vertex(location: string, token: string): GoogleGenAI {
  const oauth = new OAuth2Client();
  oauth.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  return new GoogleGenAI({
    vertexai: true,
    project: 'sim-project',
    location,
    googleAuthOptions: { authClient: oauth as unknown as SdkAuthClient },
    httpOptions: { baseUrl: `${sim.url}/vertex`, apiVersion: 'v1' },
  });
}

describe('simulated Vertex AI Gemini (driven by @google/genai)', () => {
  test('answers with an access token; refuses without one', async () => {
    const response = await vertex('us-central1', await accessToken()).models.generateContent({
      model: 'gemini-2.5-pro',
      contents: question,
    });
    assert.match(response.text ?? '', /^Simulated reply/);
    const refused = await refusal(
      vertex('us-central1', 'ya29.forged').models.generateContent({ model: 'gemini-2.5-pro', contents: 'x' }),
    );
    assert.equal(refused.status, 401);
  });

  test('streams through the project and location path', async () => {
    const stream = await vertex('global', await accessToken()).models.generateContentStream({
      model: 'gemini-3.5-flash',
      contents: question,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    assert.match(text, /^Simulated reply/);
    assert.match(
      sim.received.at(-1)?.path ?? '',
      /projects\/sim-project\/locations\/global\/.*:streamGenerateContent\?alt=sse$/,
    );
  });

  test('flex by header is served on the global location only', async () => {
    const token = await accessToken();
    const config = { httpOptions: { headers: { 'X-Vertex-AI-LLM-Shared-Request-Type': 'flex' } } };
    const served = await vertex('global', token).models.generateContent({
      model: 'gemini-2.5-flash',
      contents: question,
      config,
    });
    assert.equal(served.usageMetadata?.trafficType, 'ON_DEMAND_FLEX');
    const refused = await refusal(
      vertex('us-central1', token).models.generateContent({
        model: 'gemini-2.5-flash',
        contents: question,
        config,
      }),
    );
    assert.equal(refused.status, 400);
  });
});

describe('simulated Gemini token counters (:countTokens)', () => {
  const contents: Content[] = [{ role: 'user', parts: [{ text: question }] }];
  const systemInstruction = { parts: [{ text: 'Answer in one word.' }] };

  test('the Developer API counts as generateContent reports its prompt, {contents} or a whole request', async () => {
    const config = { systemInstruction, tools: [{ functionDeclarations: [cityTool('get_weather')] }] };
    const answered = await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
    const prompt = answered.usageMetadata?.promptTokenCount ?? 0;
    const plain = await gemini.models.countTokens({ model: 'gemini-2.5-flash', contents });
    assert.ok((plain.totalTokens ?? 0) > 0 && (plain.totalTokens ?? 0) < prompt);
    const wrapped = await raw('/gemini/v1beta/models/gemini-2.5-flash:countTokens', {
      generateContentRequest: { model: 'models/gemini-2.5-flash', contents, ...config },
    });
    assert.equal(wrapped.status, 200);
    const body = (await wrapped.json()) as Record<string, unknown>;
    assert.deepEqual(body, {
      totalTokens: prompt,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
    });
  });

  test('the Developer API refuses a bad key, an unknown model and a malformed request as Google does', async () => {
    const path = '/gemini/v1beta/models/gemini-2.5-flash:countTokens';
    const badKey = await raw(path, { contents }, { 'x-goog-api-key': 'wrong' });
    assert.equal(badKey.status, 400);
    assert.match(await badKey.text(), /API_KEY_INVALID/);
    assert.equal((await raw('/gemini/v1beta/models/gemini-0:countTokens', { contents })).status, 404);
    const both = await raw(path, {
      contents,
      generateContentRequest: { model: 'models/gemini-2.5-flash', contents },
    });
    assert.equal(both.status, 400);
    const unnamed = await raw(path, { generateContentRequest: { contents } });
    assert.match(await unnamed.text(), /GenerateContentRequest.model/);
    assert.equal((await raw(path, { contents, generationConfig: {} })).status, 400, 'not a count field');
  });

  test('Vertex counts the prompt fields, with billable characters, and checks its token', async () => {
    const client = vertex('us-central1', await accessToken());
    const config = { systemInstruction };
    const answered = await client.models.generateContent({ model: 'gemini-2.5-pro', contents, config });
    const counted = await client.models.countTokens({ model: 'gemini-2.5-pro', contents, config });
    assert.equal(counted.totalTokens, answered.usageMetadata?.promptTokenCount);
    const path =
      '/vertex/v1/projects/sim-project/locations/us-central1/publishers/google/models/gemini-2.5-pro:countTokens';
    const response = await raw(path, { contents }, { authorization: `Bearer ${await accessToken()}` });
    const body = (await response.json()) as {
      totalBillableCharacters?: number;
      promptTokensDetails?: unknown;
    };
    assert.equal(body.totalBillableCharacters, question.replace(/\s/g, '').length);
    assert.ok(Array.isArray(body.promptTokensDetails));
    const forged = await refusal(
      vertex('us-central1', 'ya29.forged').models.countTokens({ model: 'gemini-2.5-pro', contents }),
    );
    assert.equal(forged.status, 401);
    const toolConfig = await raw(
      path,
      { contents, toolConfig: {} },
      { authorization: `Bearer ${await accessToken()}` },
    );
    assert.equal(toolConfig.status, 400, 'Vertex counts take no toolConfig');
  });
});
