/**
 * Keeps each service's error catalogue, its documentation and its tests in step: every code
 * is documented in the service's docs and appears in at least one of the service's tests.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { energyErrors } from '@app/energy/errors.ts';
import { gatewayErrors } from '@app/gateway/errors.ts';

const root = join(import.meta.dirname, '..');

function testSources(dir: string): string {
  let text = '';
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') text += testSources(path);
    else if (entry.name.endsWith('.test.ts')) text += readFileSync(path, 'utf8');
  }
  return text;
}

const services = [
  {
    name: 'gateway',
    codes: Object.keys(gatewayErrors.catalogue),
    doc: 'docs/gateway/errors.md',
    src: 'packages/gateway',
    bodiless: [] as string[],
  },
  {
    name: 'energy',
    codes: Object.keys(energyErrors.catalogue),
    doc: 'docs/energy.md',
    src: 'packages/energy',
    // Rendered as Rails' `{"errors": {...}}` / `<errors>` without a code; its tests assert those bodies.
    bodiless: ['validation_failed'],
  },
];

for (const service of services) {
  describe(`${service.name} error catalogue`, () => {
    const doc = readFileSync(join(root, service.doc), 'utf8');
    const tests = testSources(join(root, service.src));

    it('documents every code with its status', () => {
      const catalogue = service.name === 'gateway' ? gatewayErrors.catalogue : energyErrors.catalogue;
      for (const code of service.codes) {
        const status = (catalogue as Record<string, { status: number }>)[code]?.status;
        const row = doc
          .split('\n')
          .find((line) => line.includes(`\`${code}\``) && line.includes(`| ${status}`));
        assert.ok(row, `${service.doc} has no table row for ${code} (${status})`);
      }
    });

    it('exercises every code in a test', () => {
      const untested = service.codes.filter(
        (code) => !service.bodiless.includes(code) && !new RegExp(`(?<![a-z_])${code}(?![a-z_])`).test(tests),
      );
      assert.deepEqual(untested, [], `codes no test of ${service.src} mentions`);
    });
  });
}
