/**
 * A wrong effort expression in the catalog is reported against the branch its `kind` names,
 * every one of them, instead of as a mix of every branch's complaints.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildCatalog, CatalogError } from './catalog.ts';

const CATALOG = join(import.meta.dirname, '../../catalog/models.json');

function problemsOf(edit: (profiles: Record<string, Record<string, unknown>>) => void): readonly string[] {
  const file = JSON.parse(readFileSync(CATALOG, 'utf8')) as {
    effortProfiles: Record<string, Record<string, unknown>>;
  };
  edit(file.effortProfiles);
  try {
    buildCatalog(file);
  } catch (error) {
    assert.ok(error instanceof CatalogError);
    return error.problems;
  }
  assert.fail('the catalog was accepted');
}

test('each wrong effort expression: one precise line, named by its path, from its own kind only', () => {
  const [first = '', second = ''] = Object.keys(
    (JSON.parse(readFileSync(CATALOG, 'utf8')) as { effortProfiles: object }).effortProfiles,
  );
  const problems = problemsOf((profiles) => {
    (profiles[first] as Record<string, unknown>).high = { kind: 'anthropic-budget', budgetTokens: 10 };
    (profiles[second] as Record<string, unknown>).low = { kind: 'gemini-levle', level: 'LOW' };
  });
  assert.deepEqual(problems, [
    `effortProfiles.${first}.high.budgetTokens: must be >= 1024`,
    `effortProfiles.${second}.low.kind: must be one of omit, openai, anthropic-budget, anthropic-adaptive, gemini-budget, gemini-level`,
  ]);
});

test('a field of another kind is an unknown field, a missing one is required', () => {
  const problems = problemsOf((profiles) => {
    const name = Object.keys(profiles)[0] ?? '';
    (profiles[name] as Record<string, unknown>).medium = { kind: 'openai', budgetTokens: 2048 };
  });
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.ok(
    problems.some((line) => /\.medium\.budgetTokens: unknown field$/.test(line)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((line) => /\.medium\.value: required$/.test(line)),
    problems.join('\n'),
  );
});
