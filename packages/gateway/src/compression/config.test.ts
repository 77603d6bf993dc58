import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '@app/http-kit';
import { loadGatewayConfig } from '../config.ts';

test('GATEWAY_COMPRESSION_TARGET_RATIO: unset by default, a share above 0 and at most 1', () => {
  assert.equal(loadGatewayConfig({}).compression.targetRatio, undefined);
  assert.equal(loadGatewayConfig({ GATEWAY_COMPRESSION_TARGET_RATIO: '0.4' }).compression.targetRatio, 0.4);
  assert.equal(loadGatewayConfig({ GATEWAY_COMPRESSION_TARGET_RATIO: '1' }).compression.targetRatio, 1);
  for (const bad of ['0', '1.5', '-0.2', 'half'])
    assert.throws(
      () => loadGatewayConfig({ GATEWAY_COMPRESSION_TARGET_RATIO: bad }),
      (error: unknown) =>
        error instanceof ConfigError && /GATEWAY_COMPRESSION_TARGET_RATIO/.test(error.message),
      bad,
    );
});
