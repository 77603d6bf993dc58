import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { AppError, fromProjectRoot } from '@app/http-kit';
import { type GatewayErrorCode, gatewayErrors } from '../../errors.ts';
import { MODEL_API_ERRORS } from '../../openapi-errors.ts';
import { ERROR_INFO_TYPE, googleErrorBody, googleStatusOf } from './google-errors.ts';

/** The catalogue's error of `code`, without its message parameters (only the status matters here). */
function errorOf(code: GatewayErrorCode): AppError {
  const { status, type } = gatewayErrors.catalogue[code];
  return new AppError({ code, status, type, message: code });
}

/** google.rpc.Code with the HTTP statuses Google's own mapping gives each. */
const CANONICAL: Readonly<Record<string, readonly number[]>> = {
  INVALID_ARGUMENT: [400, 413],
  FAILED_PRECONDITION: [410, 415],
  UNAUTHENTICATED: [401],
  PERMISSION_DENIED: [402, 403],
  NOT_FOUND: [404],
  RESOURCE_EXHAUSTED: [429],
  INTERNAL: [500, 502],
  UNAVAILABLE: [503],
  DEADLINE_EXCEEDED: [504],
};

describe("Google's error envelope", () => {
  it('maps every code of the model API to a canonical status consistent with its HTTP status', () => {
    for (const code of MODEL_API_ERRORS) {
      const error = errorOf(code);
      const google = googleStatusOf(error);
      const { status } = error;
      assert.ok(CANONICAL[google]?.includes(status), `${code} (${status}) -> ${google}`);
    }
  });

  it('retryable failures are the statuses Google clients retry; a budget refusal is not one', () => {
    const status = (code: GatewayErrorCode) => googleStatusOf(errorOf(code));
    assert.equal(status('rate_limited'), 'RESOURCE_EXHAUSTED');
    assert.equal(status('upstream_overloaded'), 'UNAVAILABLE');
    assert.equal(status('provider_unavailable'), 'UNAVAILABLE');
    assert.equal(status('upstream_timeout'), 'DEADLINE_EXCEEDED');
    assert.equal(status('gateway_allocation_exhausted'), 'PERMISSION_DENIED');
    assert.equal(status('missing_token'), 'UNAUTHENTICATED');
  });

  it('carries the HTTP status, the message, and the gateway code and param in an ErrorInfo', () => {
    const error = gatewayErrors.create('invalid_request', { reason: 'bad alt' }, { param: 'alt' });
    assert.deepEqual(googleErrorBody(error, error.message), {
      error: {
        code: 400,
        message: 'bad alt',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': ERROR_INFO_TYPE,
            reason: 'invalid_request',
            domain: 'model-gateway',
            metadata: { param: 'alt' },
          },
        ],
      },
    });
  });
});

describe("docs/gateway/errors.md's Gemini table", () => {
  it('names every code of the model API with the status the renderer gives it', () => {
    const doc = readFileSync(fromProjectRoot('docs/gateway/errors.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Gemini API routes'), doc.indexOf('## Admin API'));
    const documented = new Map<string, string>();
    for (const row of section.split('\n').filter((line) => /^\| \d{3} \(/.test(line))) {
      const google = /\| `([A-Z_]+)` \|$/.exec(row)?.[1];
      const http = /^\| \d{3} \([^)]*\) \| (\d{3}) \|/.exec(row)?.[1];
      for (const [, code] of row.matchAll(/`([a-z_]+)`/g)) {
        if (code === undefined || google === undefined) continue;
        documented.set(code, google);
        assert.equal(Number(http), errorOf(code as GatewayErrorCode).status, code);
      }
    }
    for (const code of MODEL_API_ERRORS)
      assert.equal(documented.get(code), googleStatusOf(errorOf(code)), code);
  });
});
