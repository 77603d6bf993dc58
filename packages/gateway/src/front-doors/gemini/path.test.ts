import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '@app/http-kit';
import { idOfResource, parseModelCall, resourceName, streamFraming } from './path.ts';

const PATH = '/v1beta/models/x';

function refusal(run: () => unknown): {
  code: string;
  status: number;
  message: string;
  param: string | null;
} {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  return assert.fail('no error');
}

describe('parseModelCall', () => {
  it('takes the method after the last colon, keeping modifiers and the provider in the model', () => {
    assert.deepEqual(parseModelCall('gemini-2.5-flash:high@cloud_b:generateContent', PATH), {
      model: 'gemini-2.5-flash:high@cloud_b',
      method: 'generateContent',
    });
    assert.deepEqual(parseModelCall('gemini-flash:streamGenerateContent', PATH), {
      model: 'gemini-flash',
      method: 'streamGenerateContent',
    });
    assert.deepEqual(parseModelCall('claude-sonnet:low:compact:countTokens', PATH), {
      model: 'claude-sonnet:low:compact',
      method: 'countTokens',
    });
  });

  it('decodes a percent-encoded model (%3A, %40) and an encoded method separator', () => {
    assert.deepEqual(parseModelCall('gemini-2.5-flash%3Ahigh%40cloud_b:generateContent', PATH), {
      model: 'gemini-2.5-flash:high@cloud_b',
      method: 'generateContent',
    });
    assert.deepEqual(parseModelCall('gemini-2.5-flash%3AcountTokens', PATH), {
      model: 'gemini-2.5-flash',
      method: 'countTokens',
    });
  });

  it('takes a doubled models/ prefix once, encoded or not', () => {
    assert.equal(parseModelCall('models/gemini-flash:generateContent', PATH).model, 'gemini-flash');
    assert.equal(parseModelCall('models%2Fgemini-flash:generateContent', PATH).model, 'gemini-flash');
  });

  it('refuses an unknown method with 404 naming the methods and where modifiers go', () => {
    const error = refusal(() =>
      parseModelCall('gemini-2.5-flash:high', '/v1beta/models/gemini-2.5-flash:high'),
    );
    assert.equal(error.code, 'not_found');
    assert.equal(error.status, 404);
    assert.match(error.message, /POST \/v1beta\/models\/gemini-2\.5-flash:high\./);
    assert.match(
      error.message,
      /'high' is not a method the gateway serves \(generateContent, streamGenerateContent, countTokens\)/,
    );
    assert.match(error.message, /gemini-2\.5-flash:high:generateContent/);
    assert.equal(refusal(() => parseModelCall('gemini-flash:embedContent', PATH)).status, 404);
  });

  it('refuses a path without a method, and a call without a model', () => {
    const missing = refusal(() => parseModelCall('gemini-flash', PATH));
    assert.equal(missing.status, 404);
    assert.match(missing.message, /Name a method after the model: \{model\}:\{method\}/);
    const empty = refusal(() => parseModelCall(':generateContent', PATH));
    assert.equal(empty.code, 'invalid_request');
    assert.equal(empty.param, 'model');
    assert.equal(refusal(() => parseModelCall('tunedModels/x:generateContent', PATH)).status, 400);
  });

  it('refuses a malformed percent-escape with 400', () => {
    const error = refusal(() => parseModelCall('gemini%zz:generateContent', PATH));
    assert.equal(error.code, 'invalid_request');
    assert.match(error.message, /malformed percent-escape/);
  });
});

describe('streamFraming', () => {
  it('is SSE for alt=sse, a JSON array without alt or with alt=json, and refuses another alt', () => {
    assert.equal(streamFraming('sse'), 'sse');
    assert.equal(streamFraming(undefined), 'json-array');
    assert.equal(streamFraming('json'), 'json-array');
    const error = refusal(() => streamFraming('proto'));
    assert.equal(error.param, 'alt');
    assert.equal(error.status, 400);
  });
});

describe('resource names', () => {
  it('are models/<id>, and a sent name is taken with or without the prefix', () => {
    assert.equal(resourceName('gemini-flash'), 'models/gemini-flash');
    assert.equal(idOfResource('models/gemini-flash'), 'gemini-flash');
    assert.equal(idOfResource('gemini-flash'), 'gemini-flash');
  });
});
