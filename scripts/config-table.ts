/**
 * Prints the configuration table of both services (environment variable, default,
 * description) from the config schemas themselves, so the README cannot drift from the code:
 * `npm run config-table` prints it, `npm run config-table -- --write` puts it into README.md
 * between its markers, and readme.test.ts checks it is current.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENERGY_ENV, EnergyConfigSchema } from '@app/energy/config.ts';
import { GATEWAY_ENV, GatewayConfigSchema } from '@app/gateway/config.ts';
import type { EnvMapping } from '@app/http-kit';
import type { TSchema } from 'typebox';

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  default?: unknown;
  description?: string;
  anyOf?: SchemaNode[];
  const?: unknown;
  type?: string | string[];
  minimum?: number;
  maximum?: number;
}

function nodeAt(schema: SchemaNode, path: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = schema;
  for (const part of path.split('.')) node = node?.properties?.[part];
  return node;
}

function describeType(node: SchemaNode): string {
  if (node.anyOf?.every((option) => option.const !== undefined))
    return node.anyOf.map((o) => String(o.const)).join(' \\| ');
  return Array.isArray(node.type) ? node.type.join(' \\| ') : (node.type ?? '');
}

function rows(schema: TSchema, mapping: EnvMapping): string[] {
  return Object.entries(mapping).map(([path, variable]) => {
    const node = nodeAt(schema as SchemaNode, path) ?? {};
    const fallback = node.default === undefined ? '' : `\`${JSON.stringify(node.default)}\``;
    return `| \`${variable}\` | ${describeType(node)} | ${fallback} | ${(node.description ?? '').replaceAll('|', '\\|')} |`;
  });
}

export function configTable(): string {
  const header = ['| Variable | Type | Default | Meaning |', '|---|---|---|---|'];
  return [
    '### Model gateway',
    '',
    ...header,
    ...rows(GatewayConfigSchema, GATEWAY_ENV),
    '',
    '### Energy asset service',
    '',
    ...header,
    ...rows(EnergyConfigSchema, ENERGY_ENV),
  ].join('\n');
}

const START = '<!-- config-table:start -->\n';
const END = '\n<!-- config-table:end -->';

/** README.md with the block between the markers replaced by the current table. */
export function withConfigTable(readme: string): string {
  const [before, rest] = readme.split(START);
  const after = rest?.split(END)[1];
  if (before === undefined || after === undefined)
    throw new Error('README.md lacks the config-table markers');
  return `${before}${START}${configTable()}${END}${after}`;
}

if (import.meta.main) {
  if (process.argv.includes('--write')) {
    const path = join(import.meta.dirname, '..', 'README.md');
    writeFileSync(path, withConfigTable(readFileSync(path, 'utf8')));
    console.log('README.md: configuration table updated');
  } else console.log(configTable());
}
