/**
 * A Gemini client on another family's model: its request translated to Anthropic Messages
 * and OpenAI Chat, and the answers back, with the client's tool names and call ids byte for
 * byte both ways, and the answers read by the official @google/genai client.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import type { BuildInput } from '../../adapter.ts';
import { fixtureBytes, fixtureText } from '../../anthropic/fixtures.ts';
import { anthropicAdapter } from '../../anthropic/index.ts';
import { canonicalBuildInput } from '../../conformance/canonical.ts';
import type { JsonObject } from '../../json.ts';
import { openAIConformanceFixtures } from '../../openai/fixtures.ts';
import { openAIAdapter } from '../../openai/index.ts';
import type { StreamEvent } from '../../model/response.ts';
import { encodeResponsesInput } from '../openai-responses/encode-request.ts';
import { decodeGenerateContentRequest } from './decode-request.ts';
import { encodeGenerateContentResponse, type GeminiEnvelope } from './encode-response.ts';
import { encodeConversation } from './request.ts';
import { formatSseChunk, GeminiChunkEncoder, JsonArrayFramer } from './encode-stream.ts';
import { googleErrorBody } from './error-envelope.ts';

const ENVELOPE: GeminiEnvelope = {
  modelVersion: 'claude-sonnet-4-6',
  responseId: 'r-1',
  includeThoughts: false,
};

/** A Gemini CLI turn: its own call ids (it makes them when the model sent none) and the magic signature. */
const GEMINI_TURN: JsonObject = {
  contents: [
    { role: 'user', parts: [{ text: 'Read a.txt and run ls.' }] },
    {
      role: 'model',
      parts: [
        {
          functionCall: { id: 'read_file_1795867749231_0', name: 'read_file', args: { file_path: 'a.txt' } },
          thoughtSignature: 'skip_thought_signature_validator',
        },
        { functionCall: { name: 'run_shell_command', args: { command: 'ls' } } },
      ],
    },
    {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'read_file_1795867749231_0',
            name: 'read_file',
            response: { output: 'hello' },
          },
        },
        { functionResponse: { name: 'run_shell_command', response: { output: 'a.txt' } } },
      ],
    },
  ],
  tools: [
    {
      functionDeclarations: [
        {
          name: 'read_file',
          parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } },
        },
        { name: 'run_shell_command', parametersJsonSchema: { type: 'object' } },
      ],
    },
  ],
};

function translated(body: JsonObject, stream = false): BuildInput {
  const base = canonicalBuildInput(stream);
  return {
    ...base,
    request: decodeGenerateContentRequest(body, { stream }),
    source: { api: 'gemini-generate', body, stream },
  };
}

function anthropicBody(body: JsonObject): JsonObject {
  return JSON.parse(anthropicAdapter.buildRequest(translated(body)).body) as JsonObject;
}

const blocks = (body: JsonObject) =>
  (body.messages as Array<{ content: JsonObject[] }>).flatMap((message) => message.content);

describe('a Gemini client translated to Anthropic and back', () => {
  test('tool names and the client’s ids reach Anthropic byte for byte; calls without one get a stable id', () => {
    const sent = blocks(anthropicBody(GEMINI_TURN));
    const uses = sent.filter((block) => block.type === 'tool_use').map((block) => [block.id, block.name]);
    const results = sent.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id);
    assert.deepEqual(uses, [
      ['read_file_1795867749231_0', 'read_file'],
      ['call_g1_1', 'run_shell_command'],
    ]);
    assert.deepEqual(results, ['read_file_1795867749231_0', 'call_g1_1']);
  });

  test('Anthropic’s calls come back as Gemini function calls with its ids, and go back the same', () => {
    const parsed = anthropicAdapter.parseResponse(fixtureText('tool-call-completion.fixture.json'), {
      clientApi: 'gemini-generate',
    });
    assert.equal(parsed.native, undefined, 'another API: re-encoded, not forwarded');
    const answer = encodeGenerateContentResponse(parsed.response, ENVELOPE);
    const parts = ((answer.candidates as JsonObject[])[0]?.content as { parts: JsonObject[] }).parts;
    assert.deepEqual(parts, [
      { text: "I'll look up both." },
      { functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'toolu_01A09q90qw90lq917835lq9' } },
      { functionCall: { name: 'get_time', args: { city: 'Paris' }, id: 'toolu_01B77q90qw90lq917835lq8' } },
    ]);
    const next: JsonObject = {
      contents: [
        { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        { role: 'model', parts },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                name: 'get_time',
                id: 'toolu_01B77q90qw90lq917835lq8',
                response: { output: '9:00' },
              },
            },
            {
              functionResponse: {
                name: 'get_weather',
                id: 'toolu_01A09q90qw90lq917835lq9',
                response: { output: 'sun' },
              },
            },
          ],
        },
      ],
    };
    const again = blocks(anthropicBody(next));
    assert.deepEqual(
      again.filter((block) => block.type === 'tool_use').map((block) => block.id),
      ['toolu_01A09q90qw90lq917835lq9', 'toolu_01B77q90qw90lq917835lq8'],
    );
    assert.deepEqual(
      again
        .filter((block) => block.type === 'tool_result')
        .map((block) => [block.tool_use_id, block.content]),
      [
        ['toolu_01B77q90qw90lq917835lq8', [{ type: 'text', text: '9:00' }]],
        ['toolu_01A09q90qw90lq917835lq9', [{ type: 'text', text: 'sun' }]],
      ],
    );
  });

  test('to OpenAI Chat and Responses: a result names its call by the id the call went with', () => {
    const body = JSON.parse(openAIAdapter.buildRequest(translated(GEMINI_TURN)).body) as {
      messages: Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    };
    const calls = body.messages.flatMap((message) => message.tool_calls ?? []).map((call) => call.id);
    const results = body.messages.flatMap((message) => message.tool_call_id ?? []);
    // OpenAI has no field for a signature, so it rides in the id; an id over OpenAI's 40
    // characters goes as a digest of itself, the same on every turn.
    assert.equal(calls[1], 'call_g1_1');
    assert.ok(calls.every((id) => id.length <= 40));
    assert.notEqual(calls[0], calls[1]);
    const again = JSON.parse(openAIAdapter.buildRequest(translated(GEMINI_TURN)).body) as typeof body;
    assert.deepEqual(again.messages, body.messages);
    assert.deepEqual(results, calls);
    const items = encodeResponsesInput(decodeGenerateContentRequest(GEMINI_TURN, { stream: false }));
    const callIds = items.filter((item) => item.type === 'function_call').map((item) => item.call_id);
    const outputIds = items
      .filter((item) => item.type === 'function_call_output')
      .map((item) => item.call_id);
    assert.deepEqual(outputIds, callIds);
    assert.ok(callIds.every((id) => typeof id === 'string' && id.length <= 64));
    const answer = openAIAdapter.parseResponse(openAIConformanceFixtures.toolCallCompletion, {
      clientApi: 'gemini-generate',
    });
    const encoded = encodeGenerateContentResponse(answer.response, ENVELOPE);
    const parts = ((encoded.candidates as JsonObject[])[0]?.content as { parts: JsonObject[] }).parts;
    assert.deepEqual(
      parts.map((part) => (part.functionCall as JsonObject | undefined)?.name),
      ['get_weather', 'get_time'],
    );
  });
});

describe('Claude’s thinking through a Gemini client', () => {
  test('streamed thoughts, echoed back as the client got them, reach Claude whole and signed', () => {
    const encoder = new GeminiChunkEncoder({ ...ENVELOPE, includeThoughts: true });
    const events: StreamEvent[] = [
      { type: 'thinking', text: 'Need the ' },
      { type: 'thinking', text: 'weather.' },
      { type: 'thinking', signature: 'EqMBCkYIBRgCKkD' },
      { type: 'tool_call_start', index: 0, id: 'toolu_01A', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"city":"Paris"}' },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'done' },
    ];
    // A client keeps every part of every chunk, in order, as the model's turn.
    const parts = events
      .flatMap((event) => encoder.encode(event))
      .flatMap((chunk) => ((chunk.candidates as JsonObject[])[0]?.content as { parts: JsonObject[] }).parts);
    const history: JsonObject = {
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        { role: 'model', parts },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'toolu_01A', name: 'get_weather', response: { output: 'sun' } } },
          ],
        },
      ],
    };
    const assistant = (anthropicBody(history).messages as Array<{ role: string; content: JsonObject[] }>)[1];
    assert.deepEqual(assistant?.content, [
      { type: 'thinking', thinking: 'Need the weather.', signature: 'EqMBCkYIBRgCKkD' },
      { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
    ]);
  });
});

describe('a Gemini client re-encoded for Gemini (the compression path)', () => {
  test('its own ids and signatures go back as sent; calls that had no id get none', () => {
    const body = encodeConversation(decodeGenerateContentRequest(GEMINI_TURN, { stream: false }));
    assert.deepEqual(body.contents, GEMINI_TURN.contents);
  });
});

/** Anthropic's stream, translated for a Gemini client: the chunks a front door would send. */
function geminiChunks(): JsonObject[] {
  const translator = anthropicAdapter.createStreamTranslator({ clientApi: 'gemini-generate' });
  const events: StreamEvent[] = [
    ...translator.push(fixtureBytes('tool-call-stream.fixture.sse')),
    ...translator.end(),
  ];
  const encoder = new GeminiChunkEncoder(ENVELOPE);
  return events.flatMap((event) => encoder.encode(event));
}

describe('the official @google/genai client reads what the codec writes', () => {
  let server: Server;
  let ai: GoogleGenAI;

  before(async () => {
    server = createServer((request, response) => {
      const url = request.url ?? '';
      if (url.includes(':streamGenerateContent')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(geminiChunks().map(formatSseChunk).join(''));
      } else if (url.includes('missing-model')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify(googleErrorBody(404, 'The model missing-model does not exist.')));
      } else {
        const framer = new JsonArrayFramer();
        const parsed = anthropicAdapter.parseResponse(fixtureText('tool-call-completion.fixture.json'), {
          clientApi: 'gemini-generate',
        });
        const body = encodeGenerateContentResponse(parsed.response, ENVELOPE);
        response.writeHead(200, { 'content-type': 'application/json' });
        // generateContent is one object; the array framing is checked by parsing it apart.
        response.end(url.includes('array') ? framer.chunk(body) + framer.end() : JSON.stringify(body));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: `http://127.0.0.1:${port}` } });
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('generateContent: function calls with ids, usage', async () => {
    const answer = await ai.models.generateContent({ model: 'claude-sonnet-4-6', contents: 'Weather?' });
    assert.deepEqual(
      answer.functionCalls?.map((call) => [call.id, call.name, call.args]),
      [
        ['toolu_01A09q90qw90lq917835lq9', 'get_weather', { city: 'Paris' }],
        ['toolu_01B77q90qw90lq917835lq8', 'get_time', { city: 'Paris' }],
      ],
    );
    assert.equal(answer.usageMetadata?.promptTokenCount, 412 + 1024);
    assert.equal(answer.responseId, 'r-1');
  });

  test('generateContentStream over SSE: text, whole calls, the finish on the last chunk', async () => {
    const stream = await ai.models.generateContentStream({
      model: 'claude-sonnet-4-6',
      contents: 'Weather?',
    });
    let text = '';
    const calls: unknown[] = [];
    const finishes: unknown[] = [];
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      calls.push(...(chunk.functionCalls ?? []).map((call) => [call.id, call.name, call.args]));
      finishes.push(chunk.candidates?.[0]?.finishReason);
    }
    assert.equal(text, "I'll look up both.");
    assert.deepEqual(calls, [
      ['toolu_01A09q90qw90lq917835lq9', 'get_weather', { city: 'Paris' }],
      ['toolu_01B77q90qw90lq917835lq8', 'get_time', { city: 'Paris' }],
    ]);
    assert.equal(finishes.at(-1), 'STOP');
    assert.ok(finishes.slice(0, -1).every((reason) => reason === undefined));
  });

  test('the error envelope becomes the client’s ApiError with its status and message', async () => {
    await assert.rejects(
      ai.models.generateContent({ model: 'missing-model', contents: 'hi' }),
      (error: unknown) =>
        error instanceof Error &&
        (error as { status?: number }).status === 404 &&
        /does not exist/.test(error.message),
    );
  });
});
