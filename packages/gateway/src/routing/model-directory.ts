/**
 * The live model list for front doors that answer it in their own API's shape (Gemini's
 * `models.list`): the entries GET /v1/models computes, reduced to what such a shape needs.
 * Those doors serve chat models: embedding models are not theirs to list.
 */
import {
  isProviderId,
  type Ledger,
  type ListedModel,
  type ModelDirectory,
  type Principal,
} from '../contracts.ts';
import { listModels, type ModelsRouteDeps, retrieveModel } from './models-route.ts';

type Entry = ReturnType<typeof listModels>['data'][number];

function listed(entry: Entry): ListedModel {
  return {
    id: entry.id,
    aliasOf: entry.alias_of,
    vendor: entry.owned_by,
    family: entry.family,
    created: entry.created,
    contextWindow: entry.context_window,
    maxOutputTokens: entry.max_output_tokens,
    efforts: entry.modifiers.effort,
    providers: entry.providers.map((provider) => provider.id).filter(isProviderId),
  };
}

export function createModelDirectory(
  deps: Pick<ModelsRouteDeps, 'catalog' | 'upstreams' | 'breakers'> & {
    readonly ledger: Pick<Ledger, 'balances'>;
  },
): ModelDirectory {
  const balances = (principal: Principal) => deps.ledger.balances(principal.projectId);
  return {
    list: async (principal) =>
      listModels(deps, await balances(principal))
        .data.filter((entry) => entry.kind === undefined)
        .map(listed),
    retrieve: async (principal, name) => {
      const entry = retrieveModel(deps, name, await balances(principal));
      return entry && entry.kind === undefined ? listed(entry) : undefined;
    },
  };
}
