import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAppError } from '@app/http-kit';
import fc from 'fast-check';
import { PROVIDERS } from '../contracts.ts';
import { DIMENSIONS, formatModelName, MODIFIER_WORDS, parseModelName } from './model-name.ts';
import { resolvePlan } from './resolve.ts';
import { bundledCatalog } from './testing.ts';

const catalog = bundledCatalog();
const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/);
const words = [...MODIFIER_WORDS.keys()];

test('format then parse gives back the parts (property)', () => {
  fc.assert(
    fc.property(
      fc.stringMatching(/^[A-Za-z0-9@._-]{1,20}$/),
      fc.array(segment, { maxLength: 4 }),
      fc.option(segment, { nil: undefined }),
      (base, modifiers, provider) => {
        // A base may contain `@` only when a provider follows: the last `@` is the separator.
        fc.pre(provider !== undefined || !base.includes('@'));
        const parsed = { base, modifiers, provider };
        assert.deepEqual(parseModelName(formatModelName(parsed)), parsed);
      },
    ),
  );
});

test('parse then format gives back the string (property)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (name) => {
      assert.equal(formatModelName(parseModelName(name)), name);
    }),
  );
});

test('the provider is whatever follows the last @ (property)', () => {
  fc.assert(
    fc.property(fc.array(segment, { minLength: 2, maxLength: 4 }), (parts) => {
      const name = parts.join('@');
      assert.equal(parseModelName(name).provider, parts.at(-1));
      assert.equal(parseModelName(name).base, parts.slice(0, -1).join('@').split(':')[0]);
    }),
  );
});

test('a vendor id containing @ still resolves with an explicit provider after it', () => {
  const parsed = parseModelName('claude-sonnet-4-5@20250929:high@cloud_b');
  assert.equal(parsed.provider, 'cloud_b');
  assert.equal(parsed.base, 'claude-sonnet-4-5@20250929');
  assert.deepEqual(parsed.modifiers, ['high']);
});

test('resolving any string either succeeds or throws a catalogued 400/404/410 (property)', () => {
  const names = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.stringMatching(/^[a-z0-9:@.-]{0,40}$/),
    fc
      .tuple(
        fc.constantFrom(...catalog.models.flatMap((model) => [model.id, ...catalog.aliasesOf(model)]), 'x'),
        fc.array(fc.constantFrom(...words, 'ultra', ''), { maxLength: 4 }),
        fc.option(fc.constantFrom(...PROVIDERS, 'cloud_z', ''), { nil: undefined }),
      )
      .map(([base, modifiers, provider]) => formatModelName({ base, modifiers, provider })),
  );
  const headerValues = fc.option(fc.constantFrom('high', 'flex', 'compact', 'ultra', 'cloud_b', ' '), {
    nil: undefined,
  });
  fc.assert(
    fc.property(names, headerValues, headerValues, (name, effort, provider) => {
      try {
        const plan = resolvePlan(catalog, name, {
          'x-gateway-effort': effort,
          'x-gateway-provider': provider,
        });
        assert.ok(catalog.lookup(plan.model));
      } catch (error) {
        assert.ok(isAppError(error), String(error));
        // 410: a retired version's names, once the real clock is past its date.
        assert.ok([400, 404, 410].includes(error.status), error.code);
      }
    }),
    { numRuns: 2000 },
  );
});

test('two modifiers of one dimension are rejected naming both (property)', () => {
  const byDimension = (dimension: string) =>
    words.filter((word) => MODIFIER_WORDS.get(word)?.dimension === dimension);
  const pairs = fc.constantFrom(...DIMENSIONS).chain((dimension) => {
    const own = byDimension(dimension);
    return fc.tuple(fc.constantFrom(...own), fc.constantFrom(...own));
  });
  fc.assert(
    fc.property(pairs, ([first, second]) => {
      const name = `claude-opus-4-8:${first}:${second}`;
      assert.throws(
        () => resolvePlan(catalog, name, {}),
        (error: unknown) =>
          isAppError(error) &&
          error.code === 'gateway_invalid_model_modifier' &&
          error.message.includes(`':${first}' and ':${second}'`),
      );
    }),
  );
});
