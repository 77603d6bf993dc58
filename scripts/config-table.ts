/**
 * Prints the configuration table of both services (environment variable, default,
 * description) from the config schemas themselves, so the README cannot drift from the code:
 * `node scripts/config-table.ts` regenerates it and readme.test.ts checks it is current.
 */
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

if (import.meta.main) console.log(configTable());
