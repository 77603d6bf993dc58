import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { AppError, fromProjectRoot } from '@app/http-kit';
import { type GatewayErrorCode, gatewayErrors } from '../../errors.ts';
import { anthropicErrorOf } from './anthropic-errors.ts';

/** The error types Anthropic's SDK knows (its `ErrorType`). */
const ANTHROPIC_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'timeout_error',
  'api_error',
  'overloaded_error',
]);

const codes = Object.keys(gatewayErrors.catalogue) as GatewayErrorCode[];

test('every catalogue code has an Anthropic type and a status of the same class (503 -> 529)', () => {
  for (const code of codes) {
    const { status, type } = gatewayErrors.catalogue[code];
    const error = new AppError({ code, status, type, message: code });
    const mapped = anthropicErrorOf(error);
    assert.ok(ANTHROPIC_TYPES.has(mapped.type), `${code}: ${mapped.type}`);
    if (error.status === 503) assert.deepEqual(mapped, { status: 529, type: 'overloaded_error' }, code);
    else assert.equal(mapped.status, error.status, code);
  }
  assert.equal(
    anthropicErrorOf(gatewayErrors.create('model_not_found', { model: 'x' })).type,
    'not_found_error',
  );
  assert.equal(
    anthropicErrorOf(gatewayErrors.create('upstream_timeout', { provider: 'x' })).type,
    'timeout_error',
  );
});

test("docs/gateway/errors.md's Messages table names every catalogue code", () => {
  const doc = readFileSync(fromProjectRoot('docs/gateway/errors.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Anthropic Messages route'));
  for (const code of codes) assert.ok(section.includes(`\`${code}\``), code);
});
