/**
 * The effort table, cell by cell: what each gateway effort becomes upstream for every model of
 * the bundled catalog, as the providers document it (OpenAI `reasoning_effort` values per
 * model; Anthropic budget thinking on Claude 4.5, adaptive thinking with `output_config.effort`
 * on 4.6 and later, `xhigh` only from Opus 4.7; Gemini 2.5 thinking budgets, Gemini 3 levels).
 * `-` marks an effort the model does not accept (400 gateway_invalid_model_modifier).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EFFORTS, type EffortExpression } from '@app/provider-adapters';
import { bundledCatalog } from './testing.ts';

const COLUMNS = EFFORTS; // none minimal low medium high xhigh max

/** One row per model: the cell per effort, in COLUMNS order. */
const TABLE: Readonly<Record<string, readonly string[]>> = {
  'gpt-5.6-sol': ['o:none', '-', 'o:low', 'o:medium', 'o:high', 'o:xhigh', 'o:max'],
  'gpt-5.6-terra': ['o:none', '-', 'o:low', 'o:medium', 'o:high', 'o:xhigh', 'o:max'],
  'gpt-5.6-luna': ['o:none', '-', 'o:low', 'o:medium', 'o:high', 'o:xhigh', 'o:max'],
  'gpt-5.5-2026-04-23': ['o:none', '-', 'o:low', 'o:medium', 'o:high', 'o:xhigh', '-'],
  'gpt-5.4-2026-03-05': ['o:none', '-', 'o:low', 'o:medium', 'o:high', 'o:xhigh', '-'],
  'gpt-5.4-mini-2026-03-17': ['o:none', '-', 'o:low', 'o:medium', 'o:high', 'o:xhigh', '-'],
  'claude-opus-4-8': ['omit', 'a:low', 'a:low', 'a:medium', 'a:high', 'a:xhigh', 'a:max'],
  'claude-opus-4-7': ['omit', 'a:low', 'a:low', 'a:medium', 'a:high', 'a:xhigh', 'a:max'],
  'claude-sonnet-4-6': ['omit', 'a:low', 'a:low', 'a:medium', 'a:high', '-', 'a:max'],
  'claude-sonnet-4-5-20250929': ['omit', 'b:1024', 'b:1024', 'b:2048', 'b:4096', 'b:8192', 'b:16384'],
  'claude-haiku-4-5-20251001': ['omit', 'b:1024', 'b:1024', 'b:2048', 'b:4096', 'b:8192', 'b:16384'],
  'gemini-3.1-pro-preview': ['-', 'l:LOW', 'l:LOW', 'l:MEDIUM', 'l:HIGH', '-', '-'],
  'gemini-2.5-pro': ['-', 'g:512', 'g:1024', 'g:8192', 'g:24576', 'g:32768', '-'],
  'gemini-3.5-flash': ['l:MINIMAL', 'l:MINIMAL', 'l:LOW', 'l:MEDIUM', 'l:HIGH', '-', '-'],
  'gemini-2.5-flash': ['g:0', 'g:512', 'g:1024', 'g:8192', 'g:24576', 'g:24576', '-'],
};

function cell(expression: EffortExpression | undefined): string {
  if (expression === undefined) return '-';
  switch (expression.kind) {
    case 'omit':
      return 'omit';
    case 'openai':
      return `o:${expression.value}`;
    case 'anthropic-adaptive':
      return `a:${expression.effort ?? 'default'}`;
    case 'anthropic-budget':
      return `b:${expression.budgetTokens}${expression.effort ? `+${expression.effort}` : ''}`;
    case 'gemini-budget':
      return `g:${expression.budgetTokens}`;
    case 'gemini-level':
      return `l:${expression.level}`;
  }
}

test('every cell of the effort table, on every provider that serves the model', () => {
  const chat = bundledCatalog().models.filter((model) => model.kind === 'chat');
  assert.deepEqual(chat.map((model) => model.id).sort(), Object.keys(TABLE).sort());
  for (const model of chat) {
    for (const [provider, offer] of model.offers) {
      const row = COLUMNS.map((effort) => cell(offer.profile.efforts[effort]));
      assert.deepEqual(row, TABLE[model.id], `${model.id} on ${provider}`);
      assert.deepEqual(
        offer.efforts,
        COLUMNS.filter((effort, i) => TABLE[model.id]?.[i] !== '-'),
      );
    }
  }
});

test('the upstream ids the providers require: Bedrock inference profiles, Vertex publisher ids', () => {
  const catalog = bundledCatalog();
  for (const model of catalog.models.filter((m) => m.kind === 'chat')) {
    const bedrock = model.offers.get('cloud_a');
    if (bedrock) assert.match(bedrock.profile.upstreamModel, /^global\.anthropic\.claude-/, model.id);
    const vertex = model.offers.get('cloud_b');
    if (vertex && model.vendor === 'anthropic')
      assert.doesNotMatch(vertex.profile.upstreamModel, /^anthropic\./);
  }
  const sonnet45 = catalog.lookup('claude-sonnet-4-5-20250929');
  assert.equal(sonnet45?.offers.get('cloud_b')?.profile.upstreamModel, 'claude-sonnet-4-5@20250929');
  assert.equal(
    sonnet45?.offers.get('cloud_a')?.profile.upstreamModel,
    'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
  );
});

test('web search: a tool on developer and cloud_b for Claude and Gemini, never on cloud_a', () => {
  for (const model of bundledCatalog().models.filter((m) => m.kind === 'chat')) {
    for (const [provider, offer] of model.offers) {
      const expected =
        model.vendor === 'anthropic' && provider !== 'cloud_a'
          ? 'web_search_20250305'
          : model.vendor === 'google'
            ? 'googleSearch'
            : undefined;
      assert.equal(offer.profile.webSearchTool, expected, `${model.id} on ${provider}`);
      assert.equal(offer.capabilities.webSearch, expected !== undefined);
    }
  }
});
