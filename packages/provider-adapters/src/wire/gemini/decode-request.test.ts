import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../json.ts';
import type { Part } from '../../model/content.ts';
import { decodeCountTokensRequest, encodeCountTokensResponse, parseCountTokens } from './count-tokens.ts';
import { GeminiDecodeError } from './decode-error.ts';
import { decodeGenerateContentRequest } from './decode-request.ts';
import { effortOfBudget, includesThoughts, thinkingEffort } from './thinking.ts';

const fixture = (name: string): JsonObject =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')) as JsonObject;
const decode = (body: JsonObject, stream = false) => decodeGenerateContentRequest(body, { stream });
const user = (...parts: JsonObject[]) => ({ role: 'user', parts });
const model = (...parts: JsonObject[]) => ({ role: 'model', parts });

describe('gemini client request: real bodies', () => {
  test('Gemini CLI tool follow-up: system, tools, its own call id both ways, the signature kept', () => {
    const body = fixture('gemini-cli-tool-followup.fixture.json');
    const request = decode(body, true);
    assert.equal(request.stream, true);
    assert.match(request.system[0]?.text ?? '', /^You are a non-interactive CLI agent/);
    assert.deepEqual(
      request.tools.map((tool) => (tool.type === 'function' ? tool.name : tool.type)),
      [
        'update_topic',
        'list_directory',
        'read_file',
        'grep_search',
        'glob',
        'run_shell_command',
        'google_web_search',
        'enter_plan_mode',
        'invoke_agent',
      ],
    );
    assert.deepEqual([request.temperature, request.topP], [1, 0.95]);
    const [, call, result] = request.turns;
    assert.deepEqual(call, {
      role: 'assistant',
      content: [
        {
          type: 'tool_call',
          id: 'run_shell_command_1795867749231_0',
          name: 'run_shell_command',
          arguments: '{"command":"ls","description":"List files"}',
          signature: 'skip_thought_signature_validator',
        },
      ],
    });
    const answer = result?.content[0];
    assert.equal(answer?.type, 'tool_result');
    assert.equal(answer.callId, 'run_shell_command_1795867749231_0');
    assert.equal(answer.name, 'run_shell_command');
    assert.match(answer.content[0]?.type === 'text' ? answer.content[0].text : '', /^<untrusted_context>/);
    assert.equal(includesThoughts(body), true);
    assert.equal(thinkingEffort(body), undefined, 'includeThoughts alone asks for no effort');
  });

  test('@google/genai text turn: system, output limit, thinkingBudget 0 as effort none', () => {
    const body = fixture('genai-text.fixture.json');
    const request = decode(body);
    assert.deepEqual(request, {
      system: [{ type: 'text', text: 'Be brief.' }],
      turns: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
      tools: [],
      maxOutputTokens: 100,
      stream: false,
    });
    assert.equal(thinkingEffort(body), 'none');
    assert.equal(includesThoughts(body), false);
  });

  test('@google/genai with OpenAPI-style parameters: upper-case types become JSON Schema', () => {
    const request = decode(fixture('genai-tools.fixture.json'));
    assert.deepEqual(request.tools, [
      {
        type: 'function',
        name: 'run_shell_command',
        description: 'Run a command',
        parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      },
    ]);
    assert.deepEqual(request.turns, [{ role: 'user', content: [{ type: 'text', text: 'Run ls' }] }]);
  });
});

describe('gemini client request: function call ids', () => {
  test('calls without ids get ids from their place; responses match by name, oldest first', () => {
    const body = {
      contents: [
        user({ text: 'weather and time?' }),
        model(
          { text: 'thinking', thought: true },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
          { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
        ),
        user(
          { functionResponse: { name: 'get_weather', response: { output: 'sunny' } } },
          { functionResponse: { name: 'get_weather', response: { error: 'no data' } } },
        ),
      ],
    };
    const turns = decode(body).turns;
    const calls = turns[1]?.content.filter((part) => part.type === 'tool_call') ?? [];
    assert.deepEqual(
      calls.map((call) => [call.id, call.signature]),
      [
        ['call_g1_1', 'c2ln'],
        ['call_g1_2', undefined],
      ],
    );
    assert.deepEqual(turns[1]?.content[0], { type: 'thinking', text: 'thinking' });
    assert.deepEqual(turns[2]?.content, [
      {
        type: 'tool_result',
        callId: 'call_g1_1',
        name: 'get_weather',
        content: [{ type: 'text', text: 'sunny' }],
      },
      {
        type: 'tool_result',
        callId: 'call_g1_2',
        name: 'get_weather',
        content: [{ type: 'text', text: 'no data' }],
        isError: true,
      },
    ]);
    assert.deepEqual(decode(body).turns, turns, 'the same history gets the same ids');
  });

  test('an id that names an open call wins over order; an unknown id falls back to the name', () => {
    const turns = decode({
      contents: [
        model(
          { functionCall: { name: 'f', args: {}, id: 'a' } },
          { functionCall: { name: 'f', args: {}, id: 'b' } },
        ),
        user(
          { functionResponse: { name: 'f', response: { output: '2' }, id: 'b' } },
          { functionResponse: { name: 'f', response: { output: '1' }, id: 'zzz' } },
          { functionResponse: { name: 'g', response: { x: 1 } } },
        ),
      ],
    }).turns;
    const results = turns[1]?.content.map((part) =>
      part.type === 'tool_result' ? [part.callId, part.content] : [],
    );
    assert.deepEqual(results, [
      ['b', [{ type: 'text', text: '2' }]],
      ['a', [{ type: 'text', text: '1' }]],
      ['call_g1_2', [{ type: 'text', text: '{"x":1}' }]],
    ]);
  });
});

describe('gemini client request: parts', () => {
  test('streamed thought pieces join into one signed thought; a signature on text leads it', () => {
    const turns = decode({
      contents: [
        model(
          { text: 'Let me ', thought: true },
          { text: 'think.', thought: true },
          { text: '', thought: true, thoughtSignature: 'U0lH' },
          { text: 'Answer.', thoughtSignature: 'VFhU' },
        ),
      ],
    }).turns;
    const expected: Part[] = [
      { type: 'thinking', text: 'Let me think.', signature: 'U0lH' },
      { type: 'thinking', text: '', signature: 'VFhU' },
      { type: 'text', text: 'Answer.' },
    ];
    assert.deepEqual(turns[0]?.content, expected);
  });

  test('media: inlineData images and documents, fileData URLs, a function response with parts', () => {
    const turns = decode({
      contents: [
        user(
          { inlineData: { mimeType: 'image/png', data: 'iVBOR' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBER' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.test/a.jpg' } },
        ),
        model({ functionCall: { name: 'shot', args: {} } }),
        user({
          functionResponse: {
            name: 'shot',
            response: { output: 'done' },
            parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }],
          },
        }),
      ],
    }).turns;
    assert.deepEqual(turns[0]?.content, [
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
      { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.test/a.jpg' } },
    ]);
    const result = turns[2]?.content[0];
    assert.equal(result?.type, 'tool_result');
    assert.deepEqual(result.content[1], {
      type: 'image',
      source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' },
    });
  });

  test('system instruction, tool config, sampling, structured output, search', () => {
    const request = decode({
      contents: [user({ text: 'hi' })],
      systemInstruction: { role: 'user', parts: [{ text: 'Be brief.' }] },
      tools: [
        { functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object' } }, { name: 'g' }] },
        { googleSearch: { excludeDomains: ['spam.test'] } },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      generationConfig: {
        maxOutputTokens: 100,
        stopSequences: ['END'],
        topK: 40,
        seed: 7,
        candidateCount: 1,
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING', nullable: true } } },
      },
    });
    assert.deepEqual(request.system, [{ type: 'text', text: 'Be brief.' }]);
    assert.deepEqual(request.toolChoice, { type: 'tool', name: 'f' });
    assert.deepEqual(request.tools[1], {
      type: 'function',
      name: 'g',
      parameters: { type: 'object', properties: {} },
    });
    assert.deepEqual(request.tools[2], { type: 'web_search', blockedDomains: ['spam.test'] });
    assert.deepEqual([request.maxOutputTokens, request.stop], [100, ['END']]);
    assert.deepEqual(request.responseFormat, {
      type: 'json_schema',
      name: 'response',
      schema: { type: 'object', properties: { a: { type: ['string', 'null'] } } },
    });
    const modes = ['AUTO', 'NONE', 'ANY'].map(
      (mode) => decode({ toolConfig: { functionCallingConfig: { mode } } }).toolChoice,
    );
    assert.deepEqual(modes, [{ type: 'auto' }, { type: 'none' }, { type: 'required' }]);
    const json = decode({ generationConfig: { responseMimeType: 'application/json' } });
    assert.deepEqual(json.responseFormat, { type: 'json_object' });
  });

  test('what only Gemini can do is refused with a clear message', () => {
    const refused: Array<[JsonObject, RegExp]> = [
      [{ contents: [user({ executableCode: { code: '1' } })] }, /executableCode/],
      [{ tools: [{ codeExecution: {} }] }, /codeExecution/],
      [{ tools: [{ urlContext: {} }] }, /urlContext/],
      [{ toolConfig: { functionCallingConfig: { mode: 'VALIDATED' } } }, /VALIDATED/],
      [
        { toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a', 'b'] } } },
        /one function/,
      ],
      [{ generationConfig: { candidateCount: 2 } }, /candidateCount/],
      [{ generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }, /responseModalities/],
      [{ generationConfig: { responseMimeType: 'text/x.enum' } }, /text\/x\.enum/],
      [{ cachedContent: 'cachedContents/abc' }, /cachedContent/],
      [{ contents: [{ role: 'system', parts: [] }] }, /role 'system'/],
      [{ generationConfig: { thinkingConfig: { thinkingBudget: 1, thinkingLevel: 'LOW' } } }, /not both/],
      [{ contents: [model({ functionCall: { args: {} } })] }, /function name/],
    ];
    for (const [body, message] of refused)
      assert.throws(
        () => decode(body),
        (error: unknown) => error instanceof GeminiDecodeError && message.test(error.message),
      );
  });
});

describe('gemini client request: thinking as the gateway effort', () => {
  test('levels by name, budget 0 none, -1 the default, other budgets the nearest effort', () => {
    const effort = (thinkingConfig: JsonObject) => thinkingEffort({ generationConfig: { thinkingConfig } });
    assert.deepEqual(
      ['MINIMAL', 'low', 'MEDIUM', 'HIGH'].map((thinkingLevel) => effort({ thinkingLevel })),
      ['minimal', 'low', 'medium', 'high'],
    );
    assert.deepEqual(
      [0, -1, 128, 512, 1024, 2048, 4096, 8192, 16000, 24576, 32768, 100000].map(effortOfBudget),
      [
        'none',
        undefined,
        'minimal',
        'minimal',
        'low',
        'low',
        'medium',
        'medium',
        'high',
        'high',
        'xhigh',
        'xhigh',
      ],
    );
    assert.equal(thinkingEffort({}), undefined);
    assert.throws(() => effort({ thinkingLevel: 'ultra' }), GeminiDecodeError);
  });
});

describe('gemini countTokens codec', () => {
  test('contents, Vertex-style prompt fields, or a whole generateContentRequest', () => {
    const contents = [user({ text: 'Say hello' })];
    assert.deepEqual(decodeCountTokensRequest({ contents }), { contents });
    const system = { parts: [{ text: 's' }] };
    assert.deepEqual(decodeCountTokensRequest({ contents, systemInstruction: system }), {
      contents,
      systemInstruction: system,
    });
    const whole = { model: 'models/x', contents, tools: [], generationConfig: {} };
    assert.deepEqual(decodeCountTokensRequest({ contents: [], generateContentRequest: whole }), {
      contents,
      tools: [],
      generationConfig: {},
    });
    assert.throws(() => decodeCountTokensRequest({ generateContentRequest: 'x' }), GeminiDecodeError);
    assert.deepEqual(encodeCountTokensResponse(42), { totalTokens: 42 });
    assert.equal(parseCountTokens('{"totalTokens":42,"promptTokensDetails":[]}'), 42);
    assert.equal(parseCountTokens('{}'), 0, 'Google leaves zero out');
    assert.throws(() => parseCountTokens('{"totalTokens":-1}'), /not a token count/);
    assert.throws(() => parseCountTokens('{"error":{"code":400}}'), /not a token count/);
  });
});
