import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '@app/http-kit';
import type { ListedModel } from '../../contracts.ts';
import { geminiModel, modelPage } from './models.ts';

function entry(id: string, extra: Partial<ListedModel> = {}): ListedModel {
  return {
    id,
    aliasOf: undefined,
    vendor: 'google',
    family: 'gemini-flash',
    created: 1,
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    efforts: ['none', 'low', 'high'],
    providers: ['developer', 'cloud_b'],
    ...extra,
  };
}

describe("Gemini's model shape", () => {
  it('names the model models/<id>, an alias with the version it resolves to', () => {
    const exact = geminiModel(entry('gemini-2.5-flash'));
    assert.equal(exact.name, 'models/gemini-2.5-flash');
    assert.equal(exact.baseModelId, 'gemini-2.5-flash');
    assert.equal(exact.inputTokenLimit, 1_048_576);
    assert.equal(exact.outputTokenLimit, 65_536);
    assert.deepEqual(exact.supportedGenerationMethods, [
      'generateContent',
      'streamGenerateContent',
      'countTokens',
    ]);
    assert.equal(exact.thinking, true);
    const alias = geminiModel(entry('gemini-flash', { aliasOf: 'gemini-2.5-flash' }));
    assert.equal(alias.name, 'models/gemini-flash');
    assert.equal(alias.baseModelId, 'gemini-2.5-flash');
    assert.match(alias.description, /^Alias of gemini-2\.5-flash\./);
    assert.equal(geminiModel(entry('m', { efforts: ['none'] })).thinking, false);
  });
});

describe('pagination', () => {
  const entries = Array.from({ length: 7 }, (_, i) => entry(`m${i}`));

  it('pages through the whole list with nextPageToken, the last page without one', () => {
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = modelPage(entries, { pageSize: 3, pageToken: token });
      names.push(...page.models.map((model) => model.name));
      token = page.nextPageToken;
      pages++;
    } while (token !== undefined);
    assert.equal(pages, 3);
    assert.deepEqual(
      names,
      entries.map((e) => `models/${e.id}`),
    );
  });

  it('defaults to 50 a page and takes more than 1000 as 1000', () => {
    const many = Array.from({ length: 1200 }, (_, i) => entry(`m${i}`));
    assert.equal(modelPage(many, {}).models.length, 50);
    assert.equal(modelPage(many, { pageSize: 0 }).models.length, 50);
    assert.equal(modelPage(many, { pageSize: 5000 }).models.length, 1000);
    assert.equal(modelPage(entries, {}).nextPageToken, undefined);
  });

  it('refuses a page token it did not issue', () => {
    assert.throws(
      () => modelPage(entries, { pageToken: 'bm9wZQ' }),
      (error) => isAppError(error) && error.status === 400 && error.param === 'pageToken',
    );
  });
});
