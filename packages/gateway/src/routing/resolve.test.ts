import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AppError, isAppError } from '@app/http-kit';
import { resolvePlan } from './resolve.ts';
import { buildCatalog } from './catalog.ts';
import { bundledCatalog, bundledCatalogFile } from './testing.ts';

const catalog = bundledCatalog();

function failure(name: string, headers: Record<string, string> = {}): AppError {
  try {
    resolvePlan(catalog, name, headers);
  } catch (error) {
    assert.ok(isAppError(error));
    return error;
  }
  assert.fail(`${name} was accepted`);
}

test('a bare name gets the model defaults and keeps the request text', () => {
  const plan = resolvePlan(catalog, 'claude-sonnet', {});
  assert.equal(plan.requested, 'claude-sonnet');
  assert.equal(plan.model, 'claude-sonnet-4-6');
  assert.equal(plan.family, 'claude-sonnet');
  assert.equal(plan.explicitProvider, undefined);
  assert.deepEqual(plan.options, { effort: 'none', tier: 'standard', compression: 'off' });
  assert.deepEqual(plan.ignored, []);
  assert.equal(plan.contextWindow, 1_000_000);
});

test('modifiers set options; :nocompress is compression off', () => {
  const plan = resolvePlan(catalog, 'gpt-5.6-sol:xhigh:flex:nocompress@cloud_c', {});
  assert.deepEqual(plan.options, { effort: 'xhigh', tier: 'flex', compression: 'off' });
  assert.equal(plan.explicitProvider, 'cloud_c');
});

test('a modifier wins over the header of its dimension; other headers still apply', () => {
  const plan = resolvePlan(catalog, 'gpt-5.5:low', {
    'x-gateway-effort': 'high',
    'x-gateway-service-tier': 'flex',
  });
  assert.deepEqual(plan.options, { effort: 'low', tier: 'flex', compression: 'off' });
  assert.deepEqual(plan.ignored, []);
});

test('a header wins over the model default; values are case- and space-insensitive', () => {
  const plan = resolvePlan(catalog, 'gemini-2.5-pro', { 'x-gateway-effort': ' HIGH ' });
  assert.equal(plan.options.effort, 'high');
});

test('unknown or unusable header values are ignored and listed, not errors', () => {
  const plan = resolvePlan(catalog, 'claude-haiku-4-5', {
    'x-gateway-effort': 'ultra',
    'x-gateway-service-tier': 'flex',
    'x-gateway-compression': 'squeeze',
  });
  assert.deepEqual(plan.options, { effort: 'none', tier: 'standard', compression: 'off' });
  assert.deepEqual(plan.ignored, ['effort=ultra', 'tier=flex', 'compression=squeeze']);
});

test('compression headers and modifiers resolve per model, with the vendor for the tokenizer', () => {
  const plan = resolvePlan(catalog, 'claude-haiku-4-5', { 'x-gateway-compression': ' Compact ' });
  assert.equal(plan.options.compression, 'compact');
  assert.equal(plan.vendor, 'anthropic');
  assert.equal(resolvePlan(catalog, 'gpt-5.5:compressed', {}).options.compression, 'compressed');
  assert.equal(resolvePlan(catalog, 'gemini-flash', {}).vendor, 'google');
  // The modifier wins over the header.
  const named = resolvePlan(catalog, 'gpt-5.5:nocompress', { 'x-gateway-compression': 'compressed' });
  assert.equal(named.options.compression, 'off');
});

test('a compression level the model does not accept: header ignored and listed, modifier 400', () => {
  const file = bundledCatalogFile();
  for (const model of file.models as { id: string; compression: string[] }[])
    if (model.id === 'gpt-5.5-2026-04-23') model.compression = ['off', 'compact'];
  const limited = buildCatalog(file);
  const plan = resolvePlan(limited, 'gpt-5.5', { 'x-gateway-compression': 'compressed' });
  assert.equal(plan.options.compression, 'off');
  assert.deepEqual(plan.ignored, ['compression=compressed']);
  assert.equal(
    resolvePlan(limited, 'gpt-5.5', { 'x-gateway-compression': 'compact' }).options.compression,
    'compact',
  );
  assert.throws(
    () => resolvePlan(limited, 'gpt-5.5:compressed', {}),
    /Accepted compression modifiers: :nocompress, :compact\./,
  );
});

test('header compression off and tier standard are accepted as the defaults', () => {
  const plan = resolvePlan(catalog, 'gpt-5.4', {
    'x-gateway-compression': 'off',
    'x-gateway-service-tier': 'standard',
  });
  assert.deepEqual(plan.options, { effort: 'none', tier: 'standard', compression: 'off' });
  assert.deepEqual(plan.ignored, []);
});

test('an effort header the model lacks is ignored (max on gpt-5.5)', () => {
  const plan = resolvePlan(catalog, 'gpt-5.5', { 'x-gateway-effort': 'max' });
  assert.equal(plan.options.effort, 'none');
  assert.deepEqual(plan.ignored, ['effort=max']);
});

test('X-Gateway-Provider acts as the explicit provider; @provider in the name wins over it', () => {
  assert.equal(
    resolvePlan(catalog, 'claude-opus', { 'x-gateway-provider': 'cloud_b' }).explicitProvider,
    'cloud_b',
  );
  const plan = resolvePlan(catalog, 'claude-opus@cloud_a', { 'x-gateway-provider': 'cloud_b' });
  assert.equal(plan.explicitProvider, 'cloud_a');
  assert.deepEqual(plan.ignored, []);
});

test('a provider header that is unknown, does not serve the model, or cannot honour its modifiers is ignored', () => {
  assert.deepEqual(resolvePlan(catalog, 'gpt-5.5', { 'x-gateway-provider': 'cloud_z' }).ignored, [
    'provider=cloud_z',
  ]);
  const notServing = resolvePlan(catalog, 'gpt-5.5', { 'x-gateway-provider': 'cloud_a' });
  assert.equal(notServing.explicitProvider, undefined);
  assert.deepEqual(notServing.ignored, ['provider=cloud_a']);
  const noFlex = resolvePlan(catalog, 'gpt-5.5:flex', { 'x-gateway-provider': 'cloud_c' });
  assert.equal(noFlex.explicitProvider, undefined);
  assert.deepEqual(noFlex.ignored, ['provider=cloud_c']);
});

test('header options are checked against the explicit provider', () => {
  const plan = resolvePlan(catalog, 'gpt-5.5@cloud_c', { 'x-gateway-service-tier': 'flex' });
  assert.equal(plan.options.tier, 'standard');
  assert.deepEqual(plan.ignored, ['tier=flex']);
});

test('an unknown provider suffix is 400 gateway_invalid_provider listing the providers', () => {
  const error = failure('gpt-5.5@cloud_z');
  assert.equal(error.status, 400);
  assert.equal(error.code, 'gateway_invalid_provider');
  assert.match(error.message, /'cloud_z'.*developer, cloud_a, cloud_b, cloud_c/);
});

test('an unknown base is 404 model_not_found; a provider that does not serve it too', () => {
  assert.equal(failure('gpt-9').code, 'model_not_found');
  assert.equal(failure('gpt-9').status, 404);
  const notServed = failure('gpt-5.5@cloud_a');
  assert.equal(notServed.code, 'model_not_found');
  assert.match(notServed.message, /'gpt-5\.5@cloud_a'/);
});

test('an unknown modifier is 400 naming it and listing the accepted modifiers of the model', () => {
  const error = failure('gpt-5.5:turbo');
  assert.equal(error.status, 400);
  assert.equal(error.code, 'gateway_invalid_model_modifier');
  assert.equal(error.param, 'model');
  assert.match(error.message, /':turbo'/);
  assert.match(
    error.message,
    /effort: :none, :low, :medium, :high, :xhigh; tier: :flex; compression: :nocompress, :compact, :compressed/,
  );
  assert.equal(failure('gpt-5.5::high').code, 'gateway_invalid_model_modifier');
});

test('a modifier the model does not accept is 400 listing that dimension', () => {
  const error = failure('gpt-5.5:max');
  assert.match(
    error.message,
    /':max'.*not accepted by gpt-5\.5-2026-04-23\. Accepted effort modifiers: :none, :low, :medium, :high, :xhigh\./,
  );
  assert.equal(failure('claude-sonnet-4-6:xhigh').code, 'gateway_invalid_model_modifier');
  assert.match(failure('claude-opus-4-8:flex').message, /Accepted tier modifiers: \(none\)/);
});

test('two compression modifiers in one name are rejected', () => {
  const error = failure('gemini-2.5-flash:compact:compressed');
  assert.equal(error.code, 'gateway_invalid_model_modifier');
});

test('a modifier the explicit provider does not accept is 400 naming the provider', () => {
  const error = failure('gpt-5.5:flex@cloud_c');
  assert.equal(error.code, 'gateway_invalid_model_modifier');
  assert.match(
    error.message,
    /not accepted by gpt-5\.5-2026-04-23 on cloud_c\. Accepted tier modifiers: \(none\)\./,
  );
  assert.equal(resolvePlan(catalog, 'gpt-5.5:flex@developer', {}).options.tier, 'flex');
});

test('an overlong name is 404 with a shortened echo', () => {
  const error = failure(`gpt-5.5:${'high:'.repeat(100)}`);
  assert.equal(error.code, 'model_not_found');
  assert.ok(error.message.length < 250, error.message);
});
