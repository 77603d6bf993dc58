import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AppError, isAppError } from '@app/http-kit';
import type { Router } from '../contracts.ts';
import { resolvePlan } from '../routing/resolve.ts';
import { bundledCatalog } from '../routing/testing.ts';
import {
  distinctFallbacks,
  ignoredFallbackInputs,
  MAX_FALLBACKS,
  resolveFallbacks,
  withoutFallbacks,
} from './fallbacks.ts';

// After claude-sonnet-4-5-20250929 retired (2026-11-30).
const catalog = bundledCatalog(() => Date.parse('2026-12-15T00:00:00Z'));
const router: Pick<Router, 'resolve'> = { resolve: (name, headers) => resolvePlan(catalog, name, headers) };

const header = (value: string) => ({ 'x-gateway-fallbacks': value });

function refusal(models: readonly string[] | undefined, headers: Record<string, string> = {}): AppError {
  try {
    resolveFallbacks(router, models, headers, headers);
  } catch (error) {
    assert.ok(isAppError(error));
    return error;
  }
  assert.fail('the list was accepted');
}

describe('resolveFallbacks', () => {
  test('resolves each body entry in order with the same header inputs as the primary', () => {
    const inputs = { 'x-gateway-effort': 'low' };
    const plans = resolveFallbacks(router, ['claude-sonnet:high@cloud_b', 'gpt-5.4'], {}, inputs);
    assert.deepEqual(
      plans.map((plan) => [plan.model, plan.explicitProvider, plan.options.effort]),
      [
        ['claude-sonnet-4-6', 'cloud_b', 'high'], // the modifier wins over the header
        ['gpt-5.4-2026-03-05', undefined, 'low'], // the header wins over the default
      ],
    );
  });

  test('the header: comma-separated, trimmed, case kept; repeated headers add up; blank is absent', () => {
    const plans = resolveFallbacks(router, undefined, header(' gpt-5.4-mini ,claude-haiku@cloud_b '), {});
    assert.deepEqual(
      plans.map((plan) => plan.requested),
      ['gpt-5.4-mini', 'claude-haiku@cloud_b'],
    );
    const repeated = { 'x-gateway-fallbacks': ['gpt-5.4-mini', 'claude-haiku'] };
    assert.equal(resolveFallbacks(router, undefined, repeated, {}).length, 2);
    assert.deepEqual(resolveFallbacks(router, undefined, header('   '), {}), []);
    assert.deepEqual(resolveFallbacks(router, undefined, {}, {}), []);
    assert.equal(refusal(undefined, header('GPT-5.4')).param, 'X-Gateway-Fallbacks');
  });

  test('the body field wins over the header', () => {
    const plans = resolveFallbacks(router, ['gpt-5.4-mini'], header('no-such-model'), {});
    assert.deepEqual(
      plans.map((plan) => plan.requested),
      ['gpt-5.4-mini'],
    );
  });

  test('every kind of unusable entry is a 400 invalid_request naming it, with the router’s reason', () => {
    const cases: Array<[string, RegExp]> = [
      ['no-such-model', /does not exist/],
      ['gpt-5.4:ultra', /Unknown modifier ':ultra'/],
      ['gpt-5.5:flex@cloud_c', /not accepted by gpt-5\.5-2026-04-23 on cloud_c/],
      ['gpt-5.4@cloud_z', /Unknown provider 'cloud_z'/],
      ['gpt-5.4@cloud_a', /not served by 'cloud_a'/],
      ['claude-sonnet-4-5-20250929', /retired on 2026-11-30/],
    ];
    for (const [entry, reason] of cases) {
      const error = refusal(['gpt-5.4-mini', entry]);
      assert.equal(error.status, 400, entry);
      assert.equal(error.code, 'invalid_request', entry);
      assert.equal(error.param, 'models[1]', entry);
      assert.ok(
        error.message.startsWith(`Fallback model '${entry}' ('models[1]') cannot be used: `),
        error.message,
      );
      assert.match(error.message, reason);

      const fromHeader = refusal(undefined, header(`gpt-5.4-mini, ${entry}`));
      assert.equal(fromHeader.param, 'X-Gateway-Fallbacks');
      assert.ok(fromHeader.message.startsWith(`Fallback model '${entry}' (X-Gateway-Fallbacks entry 2) `));
      assert.match(fromHeader.message, reason);
    }
  });

  test('the header is held to the body field’s limits', () => {
    const six = Array.from({ length: MAX_FALLBACKS + 1 }, () => 'gpt-5.4').join(',');
    assert.equal(
      refusal(undefined, header(six)).message,
      'X-Gateway-Fallbacks lists 6 models; at most 5 are accepted.',
    );
    const empty = refusal(undefined, header('gpt-5.4,,claude-haiku'));
    assert.equal(empty.param, 'X-Gateway-Fallbacks');
    assert.match(empty.message, /^X-Gateway-Fallbacks entry 2 is empty/);
    assert.match(refusal(undefined, header('gpt-5.4,')).message, /entry 2 is empty/);
    const long = refusal(undefined, header(`gpt-5.4, ${'x'.repeat(257)}`));
    assert.equal(long.message, 'X-Gateway-Fallbacks entry 2 is longer than 256 characters.');
  });
});

describe('distinctFallbacks and what is reported', () => {
  test('an entry repeating the primary or an earlier entry (same version, provider, options) is dropped', () => {
    const primary = router.resolve('gpt-5.4', {});
    const entries = [
      'gpt-5.4-2026-03-05',
      'gpt-5.4@developer',
      'gpt-5.4:high',
      'gpt-5.4:high',
      'claude-haiku',
    ];
    const { kept, dropped } = distinctFallbacks(
      primary,
      entries.map((name) => router.resolve(name, {})),
    );
    assert.deepEqual(
      kept.map((plan) => plan.requested),
      ['gpt-5.4@developer', 'gpt-5.4:high', 'claude-haiku'],
    );
    assert.deepEqual(dropped, ['gpt-5.4-2026-03-05', 'gpt-5.4:high']);
  });

  test('X-Gateway-Ignored entries: an overridden header and the dropped repeats', () => {
    assert.deepEqual(ignoredFallbackInputs(['gpt-5.4'], header('claude-haiku'), []), [
      'x-gateway-fallbacks=claude-haiku',
    ]);
    assert.deepEqual(ignoredFallbackInputs(undefined, header('claude-haiku'), ['a', 'b']), [
      'fallbacks=a, b',
    ]);
    assert.deepEqual(ignoredFallbackInputs(['gpt-5.4'], {}, []), []);
  });

  test('withoutFallbacks: the body as it goes upstream, untouched when it has no list', () => {
    const plain: { model: string; models?: string[] } = { model: 'gpt-5.4' };
    assert.equal(withoutFallbacks(plain), plain);
    const listed = { model: 'gpt-5.4', models: ['claude-haiku'] };
    assert.deepEqual(withoutFallbacks(listed), { model: 'gpt-5.4' });
    assert.deepEqual(listed.models, ['claude-haiku'], 'the client’s body is not changed');
  });
});
