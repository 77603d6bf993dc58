import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { ConfigError, loadConfig } from './config.ts';

const Schema = Type.Object(
  {
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    databaseUrl: Type.String({ default: 'sqlite:./data/x.db', minLength: 1 }),
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
};

describe('loadConfig', () => {
  it('applies defaults when nothing is set', () => {
    const config = loadConfig(Schema, { env: {}, mapping });
    assert.deepEqual(config, {
      port: 8080,
      databaseUrl: 'sqlite:./data/x.db',
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

  it('names every invalid value with the variable that sets it', () => {
    const error = (() => {
      try {
        loadConfig(Schema, { env: { APP_PORT: 'eighty', APP_TTL: '0' }, mapping });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.ok(error instanceof ConfigError);
    assert.ok(
      error.problems.some((p) => p.startsWith('port (APP_PORT)')),
      error.message,
    );
    assert.ok(
      error.problems.some((p) => p.startsWith('nested.ttlSeconds (APP_TTL)')),
      error.message,
    );
  });

  it('rejects unknown keys from a config file', () => {
    assert.throws(
      () => loadConfig(Schema, { env: {}, mapping, file: { port: 1, nested: { surprise: true } } }),
      (error: unknown) => error instanceof ConfigError && /nested/.test(error.message),
    );
  });

  it('lets overrides win over the environment', () => {
    const config = loadConfig(Schema, { env: { APP_PORT: '9000' }, mapping, overrides: { port: 0 } });
    assert.equal(config.port, 0);
  });
});
