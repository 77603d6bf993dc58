import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { configTable } from './config-table.ts';

it('the README configuration table matches the config schemas', () => {
  const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
  const table = readme.split('<!-- config-table:start -->\n')[1]?.split('\n<!-- config-table:end -->')[0];
  assert.equal(table, configTable(), 'run `npm run config-table -- --write` to update README.md');
});
