/**
 * The class of "configuration accepted or explained badly": every environment variable of both
 * services is given a value of the wrong kind, and the error must name the variable (not the
 * internal config path), say what it accepts (every allowed value of an enum) and never repeat a
 * string value (URLs carry passwords). Variables added later are covered without editing this.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENERGY_ENV, EnergyConfigSchema, loadEnergyConfig } from '@app/energy/config.ts';
import { GATEWAY_ENV, GatewayConfigSchema, loadGatewayConfig } from '@app/gateway/config.ts';
import { ConfigError, type EnvMapping } from '@app/http-kit';
import type { TSchema } from 'typebox';

interface Node {
  properties?: Record<string, Node>;
  anyOf?: Node[];
  const?: unknown;
  type?: string;
  pattern?: string;
  expected?: string;
}

function nodeAt(schema: TSchema, path: string): Node {
  let node: Node | undefined = schema as Node;
  for (const part of path.split('.')) node = node?.properties?.[part];
  assert.ok(node, `${path} is in the mapping but not in the schema`);
  return node;
}

/** A value of the wrong kind for the node, or undefined for free text (anything is a string). */
function wrongValue(node: Node): string | undefined {
  if (node.anyOf) return 'not-one-of-them';
  if (node.type === 'integer' || node.type === 'number') return 'not-a-number';
  if (node.type === 'boolean') return 'not-a-boolean';
  if (node.type === 'array') return '{"not": "a list"}';
  if (node.type === 'string' && node.pattern) return 'mysql://root:s3cret@wrong-kind';
  return undefined;
}

const services = [
  { name: 'gateway', schema: GatewayConfigSchema, mapping: GATEWAY_ENV, load: loadGatewayConfig },
  {
    name: 'energy',
    schema: EnergyConfigSchema,
    mapping: ENERGY_ENV,
    load: (env: NodeJS.ProcessEnv) => loadEnergyConfig(env),
  },
] as const;

function problemsOf(load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): readonly string[] {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

for (const { name, schema, mapping, load } of services) {
  describe(`${name}: every environment variable refuses a value of the wrong kind clearly`, () => {
    for (const [path, variable] of Object.entries(mapping as EnvMapping)) {
      const node = nodeAt(schema, path);
      const value = wrongValue(node);
      if (value === undefined) {
        it(`${variable} is free text: any value is accepted`, () => {
          assert.equal(node.type, 'string');
          assert.deepEqual(problemsOf(load, { [variable]: 'any text at all' }), []);
        });
        continue;
      }
      it(`${variable}=${value}`, () => {
        const problems = problemsOf(load, { [variable]: value });
        assert.equal(problems.length, 1, `one problem expected, got ${JSON.stringify(problems)}`);
        const [problem = ''] = problems;
        // `must be ...` from the schema's type or its `expected` text; a bare pattern is the fallback.
        assert.ok(
          problem.startsWith(`${variable}: must be `) ||
            (node.pattern && problem.startsWith(`${variable}: must match the pattern `)),
          problem,
        );
        assert.ok(!problem.includes(`${path} (`) && !problem.includes('anyOf'), problem);
        for (const allowed of node.anyOf ?? []) assert.ok(problem.includes(String(allowed.const)), problem);
        assert.ok(!problem.includes('s3cret'), `a string value is not repeated: ${problem}`);
      });
    }

    it('every *_URL variable has a pattern and names its accepted forms', () => {
      const urls = Object.entries(mapping as EnvMapping).filter(([, variable]) => variable.endsWith('_URL'));
      assert.ok(urls.length >= 2);
      for (const [path, variable] of urls) {
        const node = nodeAt(schema, path);
        assert.ok(node.pattern && node.expected, `${variable} has a pattern and an expected text`);
      }
    });
  });
}

describe('database URLs', () => {
  for (const [variable, load] of [
    ['GATEWAY_DATABASE_URL', loadGatewayConfig],
    ['ENERGY_DATABASE_URL', (env: NodeJS.ProcessEnv) => loadEnergyConfig(env)],
  ] as const) {
    it(`${variable} accepts sqlite: and postgres(ql):// only, naming the forms`, () => {
      for (const bad of ['mysql://x', './data/x.db', 'file:x.db', 'postgres:/x']) {
        const [problem = ''] = problemsOf(load, { [variable]: bad });
        assert.match(problem, new RegExp(`^${variable}: must be sqlite:<path>.* or postgres://`));
      }
      for (const good of ['sqlite:/tmp/x.db', 'sqlite::memory:', 'postgres://u@h/d', 'postgresql://u@h/d'])
        assert.deepEqual(problemsOf(load, { [variable]: good }), [], good);
    });
  }
});
