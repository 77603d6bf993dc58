import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { ConfigError, loadConfig } from './config.ts';

const Schema = Type.Object(
  {
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    databaseUrl: Type.String({ default: 'sqlite:./data/x.db', minLength: 1 }),
    level: Type.Union([Type.Literal('info'), Type.Literal('debug')], { default: 'info' }),
    url: Type.Optional(Type.String({ pattern: '^https://', expected: 'an https:// URL' })),
    nested: Type.Object(
      {
        ttlSeconds: Type.Integer({ minimum: 1, default: 60 }),
        list: Type.Array(Type.String(), { default: [] }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);
const mapping = {
  port: 'APP_PORT',
  databaseUrl: 'APP_DB',
  'nested.ttlSeconds': 'APP_TTL',
  'nested.list': 'APP_LIST',
  level: 'APP_LEVEL',
  url: 'APP_URL',
};

function caught(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  assert.fail('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies defaults when nothing is set', () => {
    const config = loadConfig(Schema, { env: {}, mapping });
    assert.deepEqual(config, {
      port: 8080,
      databaseUrl: 'sqlite:./data/x.db',
      level: 'info',
      nested: { ttlSeconds: 60, list: [] },
    });
  });

  it('converts environment strings to the schema types, including JSON lists', () => {
    const config = loadConfig(Schema, {
      env: { APP_PORT: '9000', APP_TTL: '5', APP_LIST: '["a","b"]' },
      mapping,
    });
    assert.equal(config.port, 9000);
    assert.equal(config.nested.ttlSeconds, 5);
    assert.deepEqual(config.nested.list, ['a', 'b']);
  });

  it('returns a deeply frozen object', () => {
    const config = loadConfig(Schema, { env: {}, mapping });
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.nested));
    assert.throws(() => {
      (config as { port: number }).port = 1;
    }, TypeError);
  });

  it('names every invalid value by its variable and what it accepts, not by the internal path', () => {
    const error = caught(() =>
      loadConfig(Schema, { env: { APP_PORT: 'eighty', APP_TTL: '0', APP_LEVEL: 'loud' }, mapping }),
    );
    assert.deepEqual(error.problems, [
      'APP_PORT: must be a whole number from 0 to 65535 (got "eighty")',
      'APP_LEVEL: must be one of: info, debug (got "loud")',
      'APP_TTL: must be a whole number of at least 1 (got 0)',
    ]);
  });

  it('refuses a fraction for a whole-number setting instead of truncating it', () => {
    const error = caught(() => loadConfig(Schema, { env: { APP_PORT: '80.5', APP_TTL: '2.5' }, mapping }));
    assert.deepEqual(error.problems, [
      'APP_PORT: must be a whole number from 0 to 65535 (got "80.5")',
      'APP_TTL: must be a whole number of at least 1 (got "2.5")',
    ]);
    const fromFile = caught(() => loadConfig(Schema, { env: {}, mapping, file: { port: 80.5 } }));
    assert.deepEqual(fromFile.problems, ['APP_PORT: must be a whole number from 0 to 65535 (got 80.5)']);
    // Whole numbers in any spelling Number() reads stay accepted.
    assert.equal(loadConfig(Schema, { env: { APP_PORT: ' 8080 ', APP_TTL: '1e3' }, mapping }).port, 8080);
  });

  it('reports every mistake at once, past the validator’s usual limit of 8 errors', () => {
    // Each wrong enum alone costs the validator one error per allowed value, plus one.
    const error = caught(() =>
      loadConfig(Schema, {
        env: { APP_LEVEL: 'loud', APP_PORT: 'x', APP_TTL: 'y', APP_URL: 'ftp://h' },
        mapping,
      }),
    );
    assert.equal(error.problems.length, 4, error.message);
  });

  it('uses a schema’s `expected` text for a pattern, and never repeats a string value', () => {
    const error = caught(() => loadConfig(Schema, { env: { APP_URL: 'mysql://root:secret@h/db' }, mapping }));
    assert.deepEqual(error.problems, ['APP_URL: must be an https:// URL']);
  });

  it('reports a wrong list item under the list’s variable', () => {
    const error = caught(() => loadConfig(Schema, { env: { APP_LIST: '[1, {"a": 2}]' }, mapping }));
    assert.deepEqual(error.problems, ['APP_LIST: must be a JSON list of strings, e.g. ["a","b"]']);
  });

  it('runs `finish` on the valid configuration before freezing it', () => {
    const config = loadConfig(Schema, {
      env: {},
      mapping,
      finish: (valid) => ({ ...valid, databaseUrl: valid.databaseUrl.toUpperCase() }),
    });
    assert.equal(config.databaseUrl, 'SQLITE:./DATA/X.DB');
    assert.ok(Object.isFrozen(config));
  });

  it('rejects unknown keys from a config file', () => {
    const error = caught(() =>
      loadConfig(Schema, { env: {}, mapping, file: { port: 1, nested: { surprise: true } } }),
    );
    assert.deepEqual(error.problems, ['nested.surprise: unknown setting']);
  });

  it('lets overrides win over the environment', () => {
    const config = loadConfig(Schema, { env: { APP_PORT: '9000' }, mapping, overrides: { port: 0 } });
    assert.equal(config.port, 0);
  });
});
