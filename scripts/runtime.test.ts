import assert from 'node:assert/strict';
import { it } from 'node:test';

it('runs on Node 24 or newer, brought by the node devDependency', () => {
  const major = Number(process.versions.node.split('.')[0]);
  assert.ok(major >= 24, `expected Node >= 24, got ${process.version} from ${process.execPath}`);
});
