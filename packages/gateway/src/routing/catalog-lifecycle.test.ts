import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AppError, isAppError } from '@app/http-kit';
import { buildCatalog } from './catalog.ts';
import { resolvePlan } from './resolve.ts';
import { bundledCatalog, bundledCatalogFile, catalogProblems, manualClock } from './testing.ts';

type Json = Record<string, unknown>;
type File = ReturnType<typeof bundledCatalogFile>;
const SONNET_45 = 'claude-sonnet-4-5-20250929';
const RETIRES = Date.parse('2026-11-30T00:00:00Z');

function model(file: File, id: string): Json {
  const found = file.models.find((entry) => entry.id === id);
  assert.ok(found, id);
  return found;
}
const indexOf = (file: File, id: string) => file.models.findIndex((entry) => entry.id === id);

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    assert.ok(isAppError(error));
    return error;
  }
  assert.fail('accepted');
}

/** The bundled file with the Gemini preview (newest of its family) retiring on 2026-12-15. */
function retiringPreview(): File {
  const file = bundledCatalogFile();
  Object.assign(model(file, 'gemini-3.1-pro-preview'), {
    retiresAt: '2026-12-15',
    successor: 'gemini-2.5-pro',
  });
  return file;
}

test('the bundled catalog dates Sonnet 4.5 as Anthropic published it, and nothing it could not source', () => {
  const catalog = bundledCatalog();
  const announced = catalog.models.filter((entry) => entry.lifecycle !== undefined);
  assert.deepEqual(
    announced.map((entry) => entry.id),
    [SONNET_45],
  );
  const { headers, ...dates } = announced[0]?.lifecycle ?? assert.fail();
  assert.deepEqual(dates, {
    deprecatedAt: '2026-09-30',
    retiresAt: '2026-11-30',
    successor: 'claude-sonnet-4-6',
    retiredFrom: RETIRES,
  });
  assert.deepEqual(headers, {
    deprecation: `@${Date.parse('2026-09-30T00:00:00Z') / 1000}`,
    sunset: 'Mon, 30 Nov 2026 00:00:00 GMT',
    link: '</v1/models/claude-sonnet-4-6>; rel="successor-version"',
  });
});

test('a family alias names the newest version not retired at the instant asked; exact ids never move', () => {
  const catalog = buildCatalog(retiringPreview());
  const preview = catalog.lookup('gemini-3.1-pro-preview');
  const stable = catalog.lookup('gemini-2.5-pro');
  assert.ok(preview && stable);
  const before = Date.parse('2026-12-14T23:59:59Z');
  const after = Date.parse('2026-12-15T00:00:00Z');
  assert.equal(catalog.lookup('gemini-pro', before), preview);
  assert.equal(catalog.lookup('gemini-pro', after), stable);
  assert.equal(catalog.lookup('gemini-3.1-pro-preview', after), preview, 'the caller answers 410 for it');
  assert.deepEqual(catalog.aliasesOf(preview, before), ['gemini-pro']);
  assert.deepEqual(catalog.aliasesOf(preview, after), []);
  assert.deepEqual(catalog.aliasesOf(stable, after), ['gemini-pro']);
});

test('resolving past the retirement: the alias moves, the exact version is a 410 naming the successor', () => {
  const clock = manualClock(Date.parse('2026-12-01T00:00:00Z'));
  const catalog = buildCatalog(retiringPreview(), 'catalog', { now: clock.now });
  assert.equal(resolvePlan(catalog, 'gemini-pro:high', {}).model, 'gemini-3.1-pro-preview');
  clock.advance(14 * 86_400_000); // 2026-12-15
  assert.equal(resolvePlan(catalog, 'gemini-pro:high', {}).model, 'gemini-2.5-pro');
  const error = refusal(() => resolvePlan(catalog, 'gemini-3.1-pro-preview:high@cloud_b', {}));
  assert.equal(error.status, 410);
  assert.equal(error.code, 'model_retired');
  assert.equal(error.type, 'invalid_request_error');
  assert.equal(error.param, 'model');
  assert.equal(
    error.message,
    "The model 'gemini-3.1-pro-preview' was retired on 2026-12-15 and no longer answers requests. Use its successor 'gemini-2.5-pro' instead (GET /v1/models lists the models available to you).",
  );
});

test('a deprecated version still resolves until its date and carries the lifecycle headers', () => {
  const clock = manualClock(RETIRES - 1);
  const catalog = bundledCatalog(clock.now);
  const plan = resolvePlan(catalog, 'claude-sonnet-4-5:high', {});
  assert.equal(plan.model, SONNET_45);
  assert.equal(plan.lifecycleHeaders?.sunset, 'Mon, 30 Nov 2026 00:00:00 GMT');
  assert.equal(resolvePlan(catalog, 'claude-sonnet-4-6', {}).lifecycleHeaders, undefined);
  clock.advance(1);
  assert.equal(refusal(() => resolvePlan(catalog, 'claude-sonnet-4-5:high', {})).code, 'model_retired');
  assert.equal(resolvePlan(catalog, 'claude-sonnet', {}).model, 'claude-sonnet-4-6');
});

test('the clock is read only for a name whose model has dates: the common path does no date work', () => {
  let reads = 0;
  const catalog = bundledCatalog(() => {
    reads += 1;
    return RETIRES - 1;
  });
  for (const name of ['claude-sonnet', 'gpt', 'gpt-5.5:low', 'gemini-flash@cloud_b', 'claude-haiku-4-5'])
    resolvePlan(catalog, name, {});
  assert.equal(reads, 0);
  resolvePlan(catalog, SONNET_45, {});
  assert.equal(reads, 1, 'one comparison with the precomputed retirement instant');
});

test('dates are ISO 8601 days or UTC instants that exist, in order: released, deprecated, retired', () => {
  const file = bundledCatalogFile();
  const i = indexOf(file, SONNET_45);
  Object.assign(model(file, SONNET_45), { deprecatedAt: '2025-09-01', retiresAt: '2026-02-31' });
  Object.assign(model(file, 'claude-haiku-4-5-20251001'), { deprecatedAt: '30.11.2026' });
  const haiku = indexOf(file, 'claude-haiku-4-5-20251001');
  const [shape, ...others] = catalogProblems(file);
  assert.match(shape ?? '', new RegExp(`^models\\[${haiku}\\]\\.deprecatedAt: must match pattern`));
  assert.deepEqual(others, []);
  delete model(file, 'claude-haiku-4-5-20251001').deprecatedAt;
  assert.deepEqual(catalogProblems(file), [
    `models[${i}].retiresAt: not a valid date`,
    `models[${i}].deprecatedAt: before the release date 2025-09-29`,
  ]);
  Object.assign(model(file, SONNET_45), { deprecatedAt: '2026-12-01', retiresAt: '2026-11-30T17:00:00Z' });
  assert.deepEqual(catalogProblems(file), [
    `models[${i}].retiresAt: before deprecatedAt (a version is deprecated before it retires)`,
  ]);
  model(file, SONNET_45).deprecatedAt = '2026-09-30';
  assert.equal(
    buildCatalog(file).lookup(SONNET_45)?.lifecycle?.retiredFrom,
    Date.parse('2026-11-30T17:00:00Z'),
  );
});

test('the successor: required with a retirement, an exact version of the catalog, still working then', () => {
  const file = bundledCatalogFile();
  const i = indexOf(file, SONNET_45);
  const sonnet = model(file, SONNET_45);
  const problemWith = (successor: string | undefined) => {
    if (successor === undefined) delete sonnet.successor;
    else sonnet.successor = successor;
    return catalogProblems(file);
  };
  assert.deepEqual(problemWith(undefined), [
    `models[${i}].successor: required with retiresAt (the 410 answer names where to go)`,
  ]);
  assert.deepEqual(problemWith('claude-sonnet'), [
    `models[${i}].successor: 'claude-sonnet' is not a model id of the catalog (name an exact version)`,
  ]);
  assert.deepEqual(problemWith(SONNET_45), [`models[${i}].successor: a model cannot succeed itself`]);
  Object.assign(model(file, 'claude-opus-4-7'), { retiresAt: '2026-11-30', successor: 'claude-opus-4-8' });
  assert.deepEqual(problemWith('claude-opus-4-7'), [
    `models[${i}].successor: 'claude-opus-4-7' is itself retired on 2026-11-30, not after ${SONNET_45} (2026-11-30); name a version that outlives it`,
  ]);
  const gpt = indexOf(file, 'gpt-5.4-2026-03-05');
  sonnet.successor = 'claude-sonnet-4-6';
  model(file, 'gpt-5.4-2026-03-05').successor = 'gpt-5.5-2026-04-23';
  assert.deepEqual(catalogProblems(file), [`models[${gpt}].successor: only with deprecatedAt or retiresAt`]);
});

test('a family whose every version retires is refused: its alias would name a retired model', () => {
  const file = bundledCatalogFile();
  Object.assign(model(file, 'claude-sonnet-4-6'), { retiresAt: '2027-06-01', successor: 'claude-opus-4-8' });
  assert.deepEqual(catalogProblems(file), [
    "families: 'claude-sonnet': every version retires (the last on 2027-06-01), after which its aliases (claude-sonnet) would resolve to a retired model; add a version without retiresAt or remove the aliases",
  ]);
});
