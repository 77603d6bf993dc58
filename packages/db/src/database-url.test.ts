import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  anchorDatabaseUrl,
  databaseLabel,
  DatabaseUrlError,
  openDatabase,
  parseDatabaseUrl,
} from './database.ts';

describe('database URLs', () => {
  it('accepts sqlite: and postgres:// / postgresql:// only', () => {
    assert.deepEqual(parseDatabaseUrl('sqlite:./data/x.db'), { engine: 'sqlite', path: './data/x.db' });
    assert.deepEqual(parseDatabaseUrl('sqlite::memory:'), { engine: 'sqlite', path: ':memory:' });
    assert.equal(parseDatabaseUrl('postgres://u@h:5432/d').engine, 'postgres');
    assert.equal(parseDatabaseUrl('postgresql://u@h/d').engine, 'postgres');
    for (const url of ['mysql://x', './data/x.db', 'sqlite:', 'postgres:/x', 'redis://h', 'SQLITE:x']) {
      assert.throws(() => parseDatabaseUrl(url), DatabaseUrlError, url);
    }
  });

  it('refuses an unsupported URL without creating a file and without repeating it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'db-url-'));
    const cwd = process.cwd();
    try {
      process.chdir(dir);
      await assert.rejects(openDatabase('mysql://root:secret@x/db'), (error: Error) => {
        assert.match(error.message, /sqlite:<path>.*postgres:\/\//);
        assert.doesNotMatch(error.message, /secret/);
        return true;
      });
      assert.equal(existsSync(join(dir, 'mysql:')), false);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('anchors a relative SQLite path at the given directory, leaving the rest alone', () => {
    assert.equal(anchorDatabaseUrl('sqlite:./data/x.db', '/srv/app'), 'sqlite:/srv/app/data/x.db');
    assert.equal(anchorDatabaseUrl('sqlite:/abs/x.db', '/srv/app'), 'sqlite:/abs/x.db');
    assert.equal(anchorDatabaseUrl('sqlite::memory:', '/srv/app'), 'sqlite::memory:');
    assert.equal(anchorDatabaseUrl('postgres://h/d', '/srv/app'), 'postgres://h/d');
  });

  it('labels a database for operators without user, password or query parameters', () => {
    assert.equal(
      databaseLabel('postgres://admin:s3cret@db.internal:5432/prod?sslpassword=k3y', 'gateway'),
      'postgres://db.internal:5432/prod, schema gateway',
    );
    assert.equal(databaseLabel('postgresql://db/prod'), 'postgresql://db/prod');
    assert.equal(databaseLabel('sqlite:/srv/app/data/gateway.db', 'gateway'), '/srv/app/data/gateway.db');
  });

  it('says whether opening created a new SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'db-created-'));
    try {
      const first = await openDatabase(`sqlite:${join(dir, 'x.db')}`);
      assert.equal(first.created, true);
      await first.close();
      const second = await openDatabase(`sqlite:${join(dir, 'x.db')}`);
      assert.equal(second.created, false);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
