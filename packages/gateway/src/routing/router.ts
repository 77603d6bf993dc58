/**
 * The Router of the request path: resolve (name + headers -> plan), select (plan -> provider,
 * upstream target, price) and report (outcome -> circuit breaker and stickiness).
 */
import type {
  BucketBalance,
  Ledger,
  Principal,
  ProviderId,
  RoutePlan,
  Router,
  Selection,
  UpstreamFailureKind,
} from '../contracts.ts';
import { gatewayErrors, type TriedBucket } from '../errors.ts';
import type { CircuitBreakers } from './breaker.ts';
import type { Catalog, CatalogModel, Offer } from './catalog.ts';
import { invalidModifier } from './model-name.ts';
import { type Headers, resolvePlan } from './resolve.ts';
import type { StickyKey, StickyStore } from './sticky-store.ts';
import type { Endpoint, Upstreams } from './upstreams.ts';

export interface RouterDeps {
  readonly catalog: Catalog;
  readonly upstreams: Upstreams;
  readonly breakers: CircuitBreakers;
  readonly sticky: StickyStore;
  readonly ledger: Pick<Ledger, 'balances'>;
}

export interface Needs {
  readonly tools: boolean;
  readonly webSearch: boolean;
}

/** A provider that could serve this request: its offer and the endpoint it is reached at. */
export interface Candidate {
  readonly offer: Offer;
  readonly endpoint: Endpoint;
}

/** Offers of the model that have an endpoint in this process, in PROVIDERS order. */
export function candidatesOf(model: CatalogModel, upstreams: Upstreams): Candidate[] {
  const out: Candidate[] = [];
  for (const offer of model.offers.values()) {
    const endpoint = upstreams.endpoint(offer.provider, model.family, model.vendor);
    if (endpoint) out.push({ offer, endpoint });
  }
  return out;
}

function takes(offer: Offer, plan: RoutePlan, needs: Needs): boolean {
  return (
    offer.efforts.includes(plan.options.effort) &&
    offer.tiers.includes(plan.options.tier) &&
    (!needs.tools || offer.capabilities.tools) &&
    (!needs.webSearch || offer.capabilities.webSearch)
  );
}

export function hasBudget(balance: BucketBalance | undefined): boolean {
  return balance !== undefined && balance.remainingMicros > 0;
}

function selectionOf(candidate: Candidate, plan: RoutePlan): Selection {
  const { offer, endpoint } = candidate;
  const flex = plan.options.tier === 'flex';
  return {
    provider: offer.provider,
    target: {
      adapter: endpoint.adapter,
      endpoint: endpoint.params,
      signer: endpoint.signer,
      offer: offer.profile,
      timeoutMs: flex ? endpoint.flexTimeoutMs : endpoint.timeoutMs,
    },
    price: offer.prices[plan.options.tier] ?? offer.prices.standard,
    prices: offer.prices,
    options: plan.options,
  };
}

function capabilityError(model: CatalogModel, needs: Needs, provider: ProviderId | undefined) {
  const missing = [needs.tools ? 'tools' : undefined, needs.webSearch ? 'web search' : undefined]
    .filter(Boolean)
    .join(' and ');
  const where = provider ? `${model.id} on ${provider}` : model.id;
  return gatewayErrors.create(
    'invalid_request',
    { reason: `The request needs ${missing}, which ${where} does not support with the requested options.` },
    { param: needs.webSearch ? 'web_search_options' : 'tools' },
  );
}

const NO_NEEDS: Needs = { tools: false, webSearch: false };

function comboError(model: CatalogModel, plan: RoutePlan) {
  const { effort, tier } = plan.options;
  return invalidModifier(
    `No provider of ${model.id} accepts effort=${effort} together with tier=${tier}; drop one of them or choose a provider with @provider.`,
  );
}

type Balances = Awaited<ReturnType<Ledger['balances']>>;

/** The buckets a 402 names: the providers really tried, with what each has left. */
function exhausted(principal: Principal, providers: readonly ProviderId[], balances: Balances) {
  const buckets: TriedBucket[] = providers.map((provider) => ({
    provider,
    balance: balances[provider] ?? 'none',
  }));
  return gatewayErrors.create('gateway_allocation_exhausted', { project: principal.projectSlug, buckets });
}

function unavailable(reason: string, retryAfterMs?: number) {
  const headers = retryAfterMs ? { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) } : undefined;
  return gatewayErrors.create('provider_unavailable', { reason }, headers ? { headers } : {});
}

function stickyKey(principal: Principal, family: string, session: string | undefined): StickyKey {
  return { userId: principal.userId, projectId: principal.projectId, family, session };
}

export function createRouter(deps: RouterDeps): Router {
  const { catalog, upstreams, breakers, sticky, ledger } = deps;
  // The catalog and the endpoints are fixed for the router's life, so each model's candidates
  // are found once, not on every request (and again for its report).
  const candidates = new Map<CatalogModel, readonly Candidate[]>();
  const candidatesFor = (model: CatalogModel): readonly Candidate[] => {
    let found = candidates.get(model);
    if (!found) {
      found = candidatesOf(model, upstreams);
      candidates.set(model, found);
    }
    return found;
  };

  /** The endpoint a selection went to: its circuit is the one a report or a release is about. */
  const endpointOf = (selection: Selection, plan: RoutePlan): Endpoint | undefined => {
    const model = catalog.lookup(plan.model);
    return model && candidatesFor(model).find((c) => c.offer.provider === selection.provider)?.endpoint;
  };

  const modelOf = (plan: RoutePlan): CatalogModel => {
    const model = catalog.lookup(plan.model);
    if (!model) throw gatewayErrors.create('model_not_found', { model: plan.model }, { param: 'model' });
    return model;
  };

  async function selectExplicit(
    plan: RoutePlan,
    model: CatalogModel,
    provider: ProviderId,
    needs: Needs,
    exclude: readonly ProviderId[],
    principal: Principal,
  ): Promise<Selection> {
    const candidate = candidatesFor(model).find((c) => c.offer.provider === provider);
    if (!candidate)
      throw unavailable(`The provider '${provider}' is not configured for ${model.id} on this gateway.`);
    if (!takes(candidate.offer, plan, needs)) throw capabilityError(model, needs, provider);
    // The chat path excludes a provider after its reservation failed: for an explicit one that
    // means its bucket cannot pay, and it is never replaced by another.
    if (exclude.includes(provider))
      throw exhausted(principal, [provider], await ledger.balances(principal.projectId));
    if (!breakers.allows(candidate.endpoint.key)) {
      throw unavailable(
        `The provider '${provider}' is failing and temporarily taken out of service; retry later or choose another provider.`,
        breakers.retryAfterMs(candidate.endpoint.key),
      );
    }
    breakers.acquire(candidate.endpoint.key);
    return selectionOf(candidate, plan);
  }

  /**
   * The usable candidate with the most budget left (ties: PROVIDERS order, the sort is stable),
   * which becomes the sticky choice. 402 when healthy providers exist but none can pay.
   */
  async function chooseAnew(
    healthy: Candidate[],
    exclude: readonly ProviderId[],
    principal: Principal,
    key: StickyKey,
  ) {
    const balances = await ledger.balances(principal.projectId);
    const remaining = (c: Candidate) => balances[c.offer.provider]?.remainingMicros ?? 0;
    const usable = healthy.filter(
      (c) => !exclude.includes(c.offer.provider) && hasBudget(balances[c.offer.provider]),
    );
    const best = [...usable].sort((a, b) => remaining(b) - remaining(a))[0];
    if (!best)
      throw exhausted(
        principal,
        healthy.map((c) => c.offer.provider),
        balances,
      );
    await sticky.set(key, best.offer.provider);
    return best;
  }

  async function selectAutomatic(
    plan: RoutePlan,
    model: CatalogModel,
    principal: Principal,
    needs: Needs,
    exclude: readonly ProviderId[],
  ): Promise<Selection> {
    const reachable = candidatesFor(model);
    if (reachable.length === 0)
      throw unavailable(`No provider of ${model.id} is configured on this gateway.`);
    const fitting = reachable.filter((c) => takes(c.offer, plan, needs));
    if (fitting.length === 0) {
      // Each option is accepted somewhere (resolve checked), but maybe not together on one provider.
      if (!reachable.some((c) => takes(c.offer, plan, NO_NEEDS))) throw comboError(model, plan);
      throw capabilityError(model, needs, undefined);
    }
    const healthy = fitting.filter((c) => breakers.allows(c.endpoint.key));
    if (healthy.length === 0)
      throw unavailable(`Every provider of ${model.id} is failing right now; retry later.`);
    const chosen = await stickyChoice(healthy, exclude, principal, plan);
    breakers.acquire(chosen.endpoint.key);
    return selectionOf(chosen, plan);
  }

  /**
   * A stored choice is kept without reading balances: the reservation that follows checks the
   * bucket atomically anyway, and when it fails the chat path excludes the provider and asks
   * again. This keeps a database read off the common path.
   */
  async function storedChoice(key: StickyKey, healthy: Candidate[], exclude: readonly ProviderId[]) {
    const current = await sticky.get(key);
    if (current === undefined || exclude.includes(current)) return undefined;
    return healthy.find((c) => c.offer.provider === current);
  }

  /**
   * Without a session: the user's choice, else a fresh one that becomes it. With one: the
   * session's own choice while it is usable; else the user's choice (or a fresh one, which
   * becomes the user's too), which becomes the session's. So a new session starts where the
   * user's work is, and a session that moved stays where it moved, whatever the user's does.
   */
  async function stickyChoice(
    healthy: Candidate[],
    exclude: readonly ProviderId[],
    principal: Principal,
    plan: RoutePlan,
  ): Promise<Candidate> {
    const userKey = stickyKey(principal, plan.family, undefined);
    if (plan.session === undefined)
      return (
        (await storedChoice(userKey, healthy, exclude)) ??
        (await chooseAnew(healthy, exclude, principal, userKey))
      );
    const sessionKey = stickyKey(principal, plan.family, plan.session);
    const ofSession = await storedChoice(sessionKey, healthy, exclude);
    if (ofSession) return ofSession;
    const chosen =
      (await storedChoice(userKey, healthy, exclude)) ??
      (await chooseAnew(healthy, exclude, principal, userKey));
    await sticky.set(sessionKey, chosen.offer.provider);
    return chosen;
  }

  return {
    resolve: (model: string, headers: Headers) => resolvePlan(catalog, model, headers),

    async select(plan, principal, needs, exclude = []) {
      const model = modelOf(plan);
      if (plan.explicitProvider !== undefined)
        return selectExplicit(plan, model, plan.explicitProvider, needs, exclude, principal);
      return selectAutomatic(plan, model, principal, needs, exclude);
    },

    release(selection, plan) {
      const endpoint = endpointOf(selection, plan);
      if (endpoint) breakers.release(endpoint.key);
    },

    async report(selection, principal, plan, outcome: 'ok' | UpstreamFailureKind) {
      const endpoint = endpointOf(selection, plan);
      if (endpoint) breakers.record(endpoint.key, outcome);
      const failed = outcome !== 'ok' && outcome !== 'client';
      if (failed && plan.explicitProvider === undefined) {
        await sticky.drop(stickyKey(principal, plan.family, undefined), selection.provider);
        if (plan.session !== undefined)
          await sticky.drop(stickyKey(principal, plan.family, plan.session), selection.provider);
      }
    },
  };
}
