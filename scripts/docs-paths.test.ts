/**
 * Every source path the docs name exists, so the docs cannot drift from the code unnoticed: a
 * backticked path (`pipeline/call-outcome.ts`, `packages/gateway/src/errors.ts`, `src/ledger/`)
 * must be a file or folder of the repository, named from the root or by its tail; a relative
 * Markdown link must reach a file. The layout tree of docs/architecture.md is checked too: each of
 * its folders must exist where the tree puts it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { docFiles, ROOT } from './docs-examples.ts';

const SKIPPED_DIRS = new Set(['node_modules', '.git', 'data']);

/** Every file and folder of the project, as root-relative paths (folders end with `/`). */
function projectPaths(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED_DIRS.has(entry.name)) continue;
      const path = join(dir, entry.name);
      const rel = relative(ROOT, path);
      if (entry.isDirectory()) {
        out.push(`${rel}/`);
        walk(path);
      } else out.push(rel);
    }
  };
  walk(ROOT);
  return out;
}

const PATHS = projectPaths();
const SOURCE_PATH = /^(?:@app\/)?[\w.-]+(?:\/[\w.-]+)*(?:\.(?:ts|js|json|md|sh)|\/)$/;
/** Names in backticks that look like paths but are not the project's files. */
const NOT_OURS = new Set([
  'ipaddr.js', // an npm package
  'foo.ts', // CONTRIBUTING's example of a file name
  'foo.test.ts',
  'data/signing-keys.json', // written at run time under the data folder
]);

/** A name in the docs resolves when it is a project path, whole or as the tail of one. */
function resolves(name: string): boolean {
  const path = name.startsWith('@app/') ? name.replace(/^@app\/([\w-]+)\//, 'packages/$1/src/') : name;
  return PATHS.some((candidate) => candidate === path || candidate.endsWith(`/${path}`));
}

function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+)`/g)].map((match) => match[1] ?? '');
}

test('every source path named in backticks in the docs exists', () => {
  const missing: string[] = [];
  for (const file of docFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const name of backticked(text)) {
      if (name.startsWith('/') || name.includes('://') || !name.includes('.') || NOT_OURS.has(name)) continue;
      if (!SOURCE_PATH.test(name)) continue;
      if (!resolves(name)) missing.push(`${relative(ROOT, file)}: ${name}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('every relative Markdown link of the docs reaches a file', () => {
  const broken: string[] = [];
  for (const file of docFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = (match[1] ?? '').split('#')[0] ?? '';
      if (target === '' || /^[a-z]+:/.test(target)) continue;
      if (!existsSync(join(dirname(file), target))) broken.push(`${relative(ROOT, file)}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the layout tree of docs/architecture.md names folders that exist where it puts them', () => {
  const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const tree = /## Layout\n\n```\n([\s\S]*?)```/.exec(text)?.[1];
  assert.ok(tree, 'docs/architecture.md has a Layout tree');
  const parents: string[] = [];
  const listed: string[] = [];
  const missing: string[] = [];
  for (const line of tree.split('\n')) {
    const entry = /^( *)([\w.<>-]+(?:\/[\w.<>-]+)*\/)(?:\s|$)/.exec(line);
    if (!entry) continue;
    const depth = (entry[1] ?? '').length / 2;
    const name = entry[2] ?? '';
    parents.length = depth;
    parents.push(name);
    // `src/<adapter>/` stands for every adapter folder; the tree lists them beside it.
    if (name.includes('<')) continue;
    const path = parents.join('');
    listed.push(path);
    if (!PATHS.includes(path)) missing.push(path);
  }
  assert.deepEqual(missing, []);
  // And the other way: every package, and every area of the gateway, has its line in the tree.
  const areas = PATHS.filter((path) => /^packages\/[\w-]+\/$|^packages\/gateway\/src\/[\w-]+\/$/.test(path));
  assert.ok(areas.length > 10, `found ${areas.length} areas`);
  assert.deepEqual(
    areas.filter((area) => !listed.includes(area)),
    [],
  );
});
