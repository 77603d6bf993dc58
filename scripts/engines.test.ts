/**
 * The engines check `npm ci` no longer prints (see .npmrc): every package the lock file installs
 * must accept the Node the project runs on (Node 24, from the `node` devDependency), which is
 * the Node running this test. A dependency that drops support for it fails here, not in
 * production.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import semver from 'semver';

interface LockEntry {
  readonly engines?: Readonly<Record<string, string>> | readonly string[];
  readonly optional?: boolean;
}

const root = join(import.meta.dirname, '..');

it('every installed package accepts the Node the project runs on', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const refused: string[] = [];
  let checked = 0;
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range =
      entry.engines && !Array.isArray(entry.engines)
        ? (entry.engines as Record<string, string>).node
        : undefined;
    if (range === undefined || entry.optional) continue;
    checked++;
    if (!semver.satisfies(process.version, range, { includePrerelease: true }))
      refused.push(`${path || 'package.json'} needs node ${range}`);
  }
  assert.ok(checked > 100, `only ${checked} packages declare engines: is the lock file read?`);
  assert.deepEqual(refused, [], `on ${process.version}`);
});

it('npm is quiet on purpose, and says why', () => {
  const npmrc = readFileSync(join(root, '.npmrc'), 'utf8');
  assert.match(npmrc, /^loglevel=error$/m);
  assert.match(npmrc, /EBADENGINE/);
});
