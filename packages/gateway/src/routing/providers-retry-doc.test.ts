/**
 * docs/gateway/providers.md, "Where a failed call may be retried": every row of its tables is
 * what the adapters it names answer for that upstream failure.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ADAPTER_IDS, type AdapterId, adapterFor, type UpstreamErrorResponse } from '@app/provider-adapters';

const doc = readFileSync(new URL('../../../../docs/gateway/providers.md', import.meta.url), 'utf8');

interface RetryTable {
  readonly adapters: readonly AdapterId[];
  readonly rows: ReadonlyArray<readonly [status: number, name: string | undefined, retry: string]>;
}

function isAdapterId(id: string): id is AdapterId {
  return (ADAPTER_IDS as readonly string[]).includes(id);
}

function retryTables(): RetryTable[] {
  const tables: RetryTable[] = [];
  for (const part of doc.split('<!-- retry-table: ').slice(1)) {
    const [head = '', rest = ''] = part.split(' -->');
    const adapters = head.split(' ').filter(isAdapterId);
    const body = rest.split('<!-- /table -->')[0] ?? '';
    const rows = [...body.matchAll(/^\|\s*`(\d{3})(?: (\w+))?`\s*\|\s*(\w+)\s*\|\s*$/gm)].map(
      ([, status, name, retry]) => [Number(status), name, retry ?? ''] as const,
    );
    // A row the pattern missed would go untested.
    assert.equal(rows.length, body.split('\n').filter((line) => line.startsWith('| `')).length, head);
    tables.push({ adapters, rows });
  }
  return tables;
}

/** The upstream's answer for a row, in the envelope of the adapter's API. */
function answer(adapter: AdapterId, status: number, name: string | undefined): UpstreamErrorResponse {
  const json = (body: unknown) => JSON.stringify(body);
  switch (adapter) {
    case 'openai':
    case 'azure-openai':
    case 'openai-compatible':
      return { status, headers: {}, body: json({ error: { message: 'x', code: name ?? null } }) };
    case 'bedrock-converse':
      return {
        status,
        headers: name ? { 'x-amzn-errortype': `${name}:http://x` } : {},
        body: '{"message":"x"}',
      };
    case 'gemini':
    case 'vertex-gemini':
      return { status, headers: {}, body: json({ error: { code: status, message: 'x', status: name } }) };
    case 'anthropic':
    case 'vertex-claude': {
      // Vertex answers in Google's envelope (upper-case status names), the model in Anthropic's.
      if (name !== undefined && /^[A-Z_]+$/.test(name))
        return { status, headers: {}, body: json({ error: { code: status, message: 'x', status: name } }) };
      const error = name === undefined ? '' : json({ type: 'error', error: { type: name, message: 'x' } });
      return { status, headers: {}, body: error };
    }
  }
}

describe('docs/gateway/providers.md retry tables', () => {
  const tables = retryTables();

  test('there is a table for every adapter', () => {
    assert.deepEqual([...new Set(tables.flatMap((table) => table.adapters))].sort(), [...ADAPTER_IDS].sort());
    assert.ok(tables.every((table) => table.rows.length > 0));
  });

  for (const { adapters, rows } of tables) {
    test(`${adapters.join(', ')}: each row is what the adapter says`, () => {
      for (const adapter of adapters) {
        for (const [status, name, retry] of rows) {
          const failure = adapterFor(adapter).mapError(answer(adapter, status, name));
          assert.equal(failure.retry ?? 'never', retry, `${adapter} ${status} ${name ?? ''}`);
        }
      }
    });
  }
});
