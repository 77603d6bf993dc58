import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readHeaderSecret, readSecret } from './secrets.ts';
import { CredentialError } from './signer.ts';

const dir = mkdtempSync(join(tmpdir(), 'gateway-secrets-'));
const file = (name: string, content: string): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('readSecret', () => {
  test('reads and trims an environment variable', () => {
    assert.equal(readSecret('env:KEY', { KEY: '  sk-value\n' }), 'sk-value');
  });

  test('a missing or blank variable names the location', () => {
    for (const env of [{}, { KEY: '' }, { KEY: ' \n ' }]) {
      assert.throws(
        () => readSecret('env:KEY', env),
        (error: unknown) => {
          assert.ok(error instanceof CredentialError);
          assert.match(error.message, /secret env:KEY: environment variable is not set or empty/);
          return true;
        },
      );
    }
  });

  test('reads and trims a file', () => {
    assert.equal(readSecret(`path:${file('key', 'file-secret\n')}`, {}), 'file-secret');
  });

  test('an unreadable or empty file names the location, not the content', () => {
    const missing = join(dir, 'absent');
    assert.throws(
      () => readSecret(`path:${missing}`, {}),
      new RegExp(`secret path:${missing}: file cannot be read \\(ENOENT\\)`),
    );
    const empty = file('empty', '  \n');
    assert.throws(() => readSecret(`path:${empty}`, {}), /file is empty/);
  });

  test('a malformed location is refused without being echoed', () => {
    assert.throws(
      () => readSecret('sk-live-pasted-inline', {}),
      (error: unknown) => {
        assert.ok(error instanceof CredentialError);
        assert.doesNotMatch(error.message, /sk-live/);
        return true;
      },
    );
  });

  test('header secrets refuse line breaks without showing the value', () => {
    assert.throws(
      () => readHeaderSecret('env:KEY', { KEY: 'abc\r\nx-evil: 1' }),
      (error: unknown) => {
        assert.ok(error instanceof CredentialError);
        assert.match(error.message, /env:KEY: contains line breaks/);
        assert.doesNotMatch(error.message, /evil/);
        return true;
      },
    );
    assert.equal(readHeaderSecret('env:KEY', { KEY: 'abc' }), 'abc');
  });
});
