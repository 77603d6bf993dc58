import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterRequestError, type BuildInput } from '../adapter.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import type { JsonObject } from '../json.ts';
import type { Turn } from '../model/content.ts';
import type { EffortExpression } from '../model/profile.ts';
import type { ModelRequest } from '../model/request.ts';
import { packToolCallId } from '../model/tool-call-id.ts';
import { geminiAdapter as adapter } from './index.ts';

const base = canonicalBuildInput(false);

function input(request: Partial<ModelRequest> = {}, rest: Partial<BuildInput> = {}): BuildInput {
  return {
    ...base,
    request: { ...base.request, ...request },
    offer: { ...base.offer, upstreamModel: 'gemini-3.5-flash', tiers: ['standard', 'flex'] },
    endpoint: { baseUrl: 'https://generativelanguage.example/v1beta' },
    ...rest,
  };
}

function body(request: Partial<ModelRequest> = {}, rest: Partial<BuildInput> = {}): JsonObject {
  return JSON.parse(adapter.buildRequest(input(request, rest)).body) as JsonObject;
}

function generationConfig(reasoning: EffortExpression): unknown {
  return body({}, { reasoning }).generationConfig;
}

const CITY_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const user = (text: string): Turn => ({ role: 'user', content: [{ type: 'text', text }] });
describe('gemini request', () => {
  test('URL: the model in the path, :generateContent or :streamGenerateContent?alt=sse', () => {
    assert.equal(
      adapter.buildRequest(input()).url,
      'https://generativelanguage.example/v1beta/models/gemini-3.5-flash:generateContent',
    );
    assert.equal(
      adapter.buildRequest(input({ stream: true })).url,
      'https://generativelanguage.example/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse',
    );
  });

  test('effort: a budget or a level, never both; omit sends no thinkingConfig', () => {
    assert.deepEqual(generationConfig({ kind: 'gemini-budget', budgetTokens: 0 }), {
      maxOutputTokens: 2048,
      thinkingConfig: { thinkingBudget: 0 },
    });
    const level = generationConfig({ kind: 'gemini-level', level: 'MINIMAL' }) as JsonObject;
    assert.deepEqual(level.thinkingConfig, { thinkingLevel: 'MINIMAL' });
    assert.deepEqual(generationConfig({ kind: 'omit' }), { maxOutputTokens: 2048 });
    assert.throws(() => generationConfig({ kind: 'openai', value: 'low' }), /not one Gemini understands/);
  });

  test('roles: assistant becomes model, same-role turns merge, the system prompt is systemInstruction', () => {
    const sent = body({
      turns: [user('a'), user('b'), { role: 'assistant', content: [{ type: 'text', text: 'c' }] }],
    });
    assert.deepEqual(sent.contents, [
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'model', parts: [{ text: 'c' }] },
    ]);
    assert.deepEqual(sent.systemInstruction, { parts: [{ text: 'You are terse.' }] });
    assert.equal('user' in sent, false);
  });

  test('a function call goes back with its thoughtSignature, also when it rode in the id', () => {
    // A real signature is base64 with +, / and =; the id that carries it must not.
    const packed = packToolCallId('c2', 'Cs+/9w==');
    assert.match(packed, /^[a-zA-Z0-9_-]+$/);
    const turns: Turn[] = [
      user('weather?'),
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_call',
            id: 'c1',
            name: 'get_weather',
            arguments: '{"city":"Paris"}',
            signature: 'SIG1',
          },
          { type: 'tool_call', id: packed, name: 'get_time', arguments: '' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', callId: 'c1', content: [{ type: 'text', text: 'sunny' }] },
          {
            type: 'tool_result',
            callId: packed,
            content: [{ type: 'text', text: '9' }],
            isError: true,
          },
        ],
      },
    ];
    const contents = body({ turns }).contents as JsonObject[];
    assert.deepEqual(contents[1], {
      role: 'model',
      parts: [
        {
          functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'c1' },
          thoughtSignature: 'SIG1',
        },
        { functionCall: { name: 'get_time', args: {}, id: 'c2' }, thoughtSignature: 'Cs+/9w==' },
      ],
    });
    assert.deepEqual(contents[2], {
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: 'sunny' }, id: 'c1' } },
        { functionResponse: { name: 'get_time', response: { error: '9' }, id: 'c2' } },
      ],
    });
  });

  test('a tool result with no name and no matching call is refused; non-object arguments too', () => {
    const orphan: Turn = { role: 'user', content: [{ type: 'tool_result', callId: 'nope', content: [] }] };
    assert.throws(() => body({ turns: [orphan] }), AdapterRequestError);
    const bad: Turn = {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'x', name: 'f', arguments: '[1]' }],
    };
    assert.throws(() => body({ turns: [user('q'), bad] }), AdapterRequestError);
  });

  test('thinking parts go back as thought parts; a lone signature rides on the next part', () => {
    const turn: Turn = {
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'hmm', signature: 'T1' },
        { type: 'thinking', text: '', signature: 'T2' },
        { type: 'text', text: 'Paris.' },
        { type: 'redacted_thinking', data: 'opaque' },
      ],
    };
    const contents = body({ turns: [user('q'), turn] }).contents as JsonObject[];
    assert.deepEqual(contents[1]?.parts, [
      { text: 'hmm', thought: true, thoughtSignature: 'T1' },
      { text: 'Paris.', thoughtSignature: 'T2' },
    ]);
  });

  test('media: base64 and data URLs inline, https as fileData, gs:// and http refused', () => {
    const image = (url: string): Turn => ({
      role: 'user',
      content: [{ type: 'image', source: { kind: 'url', url } }],
    });
    const parts = (turn: Turn) => (body({ turns: [turn] }).contents as JsonObject[])[0]?.parts;
    assert.deepEqual(parts(image('data:image/png;base64,AAAA')), [
      { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
    ]);
    assert.deepEqual(parts(image('https://example.org/cat.JPG?x=1')), [
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.org/cat.JPG?x=1' } },
    ]);
    const pdf: Turn = {
      role: 'user',
      content: [{ type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' } }],
    };
    assert.deepEqual(parts(pdf), [{ inlineData: { mimeType: 'application/pdf', data: 'JVBE' } }]);
    assert.throws(() => parts(image('gs://bucket/cat.png')), AdapterRequestError);
    assert.throws(() => parts(image('http://example.org/cat.png')), AdapterRequestError);
  });

  test('tools: function declarations with parametersJsonSchema, googleSearch only with the profile', () => {
    const search = { type: 'web_search' } as const;
    const offer = { ...input().offer, webSearchTool: 'googleSearch' };
    const sent = body(
      { tools: [...base.request.tools, search], toolChoice: { type: 'tool', name: 'get_weather' } },
      { offer },
    );
    assert.deepEqual(sent.tools, [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather of a city',
            parametersJsonSchema: CITY_SCHEMA,
          },
        ],
      },
      { googleSearch: {} },
    ]);
    assert.deepEqual(sent.toolConfig, {
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
    assert.throws(() => body({ tools: [search] }), /Web search is not available/);
    assert.throws(
      () => body({ tools: [{ ...search, blockedDomains: ['x.org'] }] }, { offer }),
      AdapterRequestError,
    );
    assert.deepEqual(body({ toolChoice: { type: 'required' } }).toolConfig, {
      functionCallingConfig: { mode: 'ANY' },
    });
    assert.deepEqual(body({ toolChoice: { type: 'none' } }).toolConfig, {
      functionCallingConfig: { mode: 'NONE' },
    });
  });

  test('generation config: limits capped at the model, sampling, stops, JSON schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const sent = body({
      maxOutputTokens: 10_000_000,
      temperature: 0.2,
      topP: 0.9,
      stop: ['END'],
      responseFormat: { type: 'json_schema', name: 'x', schema },
    });
    assert.deepEqual(sent.generationConfig, {
      maxOutputTokens: 64000,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['END'],
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
    const { maxOutputTokens: _, ...unlimited } = base.request;
    assert.equal(
      JSON.parse(adapter.buildRequest({ ...input(), request: unlimited }).body).generationConfig,
      undefined,
    );
  });

  test('flex is the body serviceTier; standard sends none; a tier the offer lacks is refused', () => {
    assert.equal(body({}, { tier: 'flex' }).serviceTier, 'flex');
    assert.equal('serviceTier' in body(), false);
    assert.equal(Object.keys(adapter.buildRequest(input({}, { tier: 'flex' })).headers).length, 1);
    const offer = { ...input().offer, tiers: ['standard'] as const };
    assert.throws(() => adapter.buildRequest({ ...input(), offer, tier: 'flex' }), AdapterRequestError);
  });
});
