/**
 * Deployments named by the operator (Azure OpenAI): an endpoint's `deployments` maps catalog
 * models to the deployment each is called at, so deployments need not be named exactly like
 * the catalog's dated ids; `management` says where `catalog-check --credentials` lists the
 * deployments that exist (Azure Resource Manager, which takes Entra ID tokens only). Keys are
 * checked at start-up: each must name a model this endpoint serves.
 */
import type { DeploymentsLocation } from '@app/provider-adapters';
import { type Static, Type } from 'typebox';
import {
  AUTH_SCHEMAS,
  type AuthEntry,
  ENTRA_AUTH_TYPES,
  HTTPS_OR_LOOPBACK_URL,
} from '../upstream/credentials/index.ts';
import type { Catalog, CatalogModel, Offer } from './catalog.ts';
import { taggedProblems } from './schema-errors.ts';

export const DEFAULT_MANAGEMENT_URL = 'https://management.azure.com';
export const DEFAULT_MANAGEMENT_SCOPE = 'https://management.azure.com/.default';

/** Azure's rule for deployment names: letters, digits, `-`, `_` and `.`, 2 to 64 of them. */
export const DeploymentsSchema = Type.Record(
  Type.String(),
  Type.String({ pattern: '^[A-Za-z0-9._-]{2,64}$' }),
);

export const ManagementSchema = Type.Object(
  {
    subscriptionId: Type.String({
      pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
    }),
    resourceGroup: Type.String({ pattern: '^[-\\w.()]{1,90}$' }),
    /** The Azure OpenAI (or AI Foundry) resource's name. */
    account: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{1,63}$' }),
    /** Sovereign clouds (`https://management.usgovcloudapi.net`), or `simulator/<path>`. */
    baseUrl: Type.Optional(Type.String({ pattern: `${HTTPS_OR_LOOPBACK_URL}|^simulator(/\\S*)?$` })),
    scope: Type.Optional(Type.String({ pattern: '^\\S+$' })),
    /** An Entra identity for the management API; absent: the endpoint's own, if it is one. */
    auth: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type ManagementEntry = Static<typeof ManagementSchema>;

interface WithDeployments {
  readonly deployments?: Readonly<Record<string, string>>;
  readonly management?: ManagementEntry;
  readonly auth?: unknown;
}

const ENTRA_TYPES = [...ENTRA_AUTH_TYPES].join(', ');

function managementProblems(entry: WithDeployments, path: string): string[] {
  if (entry.management === undefined) return [];
  const own = entry.management.auth;
  if (own !== undefined) {
    const problems = taggedProblems(AUTH_SCHEMAS, 'type', own, `${path}.management.auth`);
    if (problems.length > 0) return problems;
    return ENTRA_AUTH_TYPES.has((own as AuthEntry).type)
      ? []
      : [
          `${path}.management.auth.type: must be one of ${ENTRA_TYPES}: the management API takes Entra ID tokens only`,
        ];
  }
  const type = (entry.auth as AuthEntry | undefined)?.type ?? 'none';
  return ENTRA_AUTH_TYPES.has(type)
    ? []
    : [
        `${path}.management.auth: required: ${path}.auth (${type}) cannot call the management API, which takes Entra ID tokens only (${ENTRA_TYPES})`,
      ];
}

/** `served(model)`: the offer this endpoint serves the model with, if it serves it. */
export type Served = (model: CatalogModel) => Offer | undefined;

/**
 * Problems of an endpoint's `deployments` and `management`, and the mapping keyed as the
 * adapter reads it: by each offer's upstream model.
 */
export function resolveDeployments(
  entry: WithDeployments,
  path: string,
  catalog: Catalog,
  served: Served,
): { problems: string[]; byUpstreamModel: Record<string, string> } {
  const problems = managementProblems(entry, path);
  const byUpstreamModel: Record<string, string> = {};
  const named = new Map<string, string>();
  for (const [name, deployment] of Object.entries(entry.deployments ?? {})) {
    const model = catalog.lookup(name);
    const offer = model === undefined ? undefined : served(model);
    if (model === undefined || offer === undefined) {
      const what =
        model === undefined ? 'not a model of the catalog' : `${model.id} is not served through ${path}`;
      problems.push(`${path}.deployments.${name}: ${what}`);
      continue;
    }
    const earlier = named.get(model.id);
    if (earlier !== undefined) {
      problems.push(`${path}.deployments.${name}: names ${model.id}, as ${path}.deployments.${earlier} does`);
      continue;
    }
    named.set(model.id, name);
    byUpstreamModel[offer.upstreamModel] = deployment;
  }
  return { problems, byUpstreamModel };
}

/** Where the endpoint's deployments are listed, and the identity that may list them. */
export interface Management {
  readonly location: DeploymentsLocation;
  /** An Entra auth entry whose scope is the management API's. */
  readonly auth: AuthEntry;
}

export function managementOf(
  entry: WithDeployments,
  substitute: (url: string) => string,
): Management | undefined {
  const management = entry.management;
  if (management === undefined) return undefined;
  const auth = (management.auth ?? entry.auth) as AuthEntry;
  return {
    location: {
      baseUrl: substitute(management.baseUrl ?? DEFAULT_MANAGEMENT_URL).replace(/\/+$/, ''),
      subscriptionId: management.subscriptionId,
      resourceGroup: management.resourceGroup,
      account: management.account,
    },
    auth: { ...auth, scope: management.scope ?? DEFAULT_MANAGEMENT_SCOPE } as AuthEntry,
  };
}
