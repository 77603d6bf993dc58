/**
 * Provider selection and the budget reservation, together because they depend on each other:
 * the estimate needs the chosen provider's price, and a bucket that cannot pay sends an
 * automatic selection on to the next provider (an explicit provider is never replaced: the
 * router turns the exclusion into a 402 for it).
 */
import type {
  Ledger,
  Principal,
  ProviderId,
  Reservation,
  RoutePlan,
  Router,
  Selection,
} from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';
import { reservationMicros } from '../pricing.ts';

export interface Reserved {
  readonly selection: Selection;
  readonly reservation: Reservation;
}

export async function selectAndReserve(
  deps: { readonly router: Router; readonly ledger: Ledger },
  input: {
    readonly plan: RoutePlan;
    readonly principal: Principal;
    readonly needs: { readonly tools: boolean; readonly webSearch: boolean };
    readonly promptTokens: number;
    readonly outputTokens: number;
    /** The most server-side web searches the request may make (0 without web search). */
    readonly webSearches: number;
    /** Providers this request already tried (failover); grows with those that cannot pay. */
    readonly excluded: ProviderId[];
    /** Called with each selection before its reservation, so errors report the provider tried. */
    readonly onSelected: (selection: Selection) => void;
  },
): Promise<Reserved> {
  const { excluded } = input;
  const dry: ProviderId[] = [];
  for (;;) {
    const selection = await deps.router.select(input.plan, input.principal, input.needs, excluded);
    input.onSelected(selection);
    const estimateMicros = reservationMicros(
      input.promptTokens,
      input.outputTokens,
      selection.price,
      input.webSearches,
    );
    const reservation = await deps.ledger.tryReserve({
      principal: input.principal,
      provider: selection.provider,
      estimateMicros,
      session: input.plan.session,
    });
    if (reservation) return { selection, reservation };
    // Another provider may still have budget; the router says so by selecting again (or by
    // throwing 402 itself once none is left, and at once for an explicit provider).
    deps.router.release(selection, input.plan);
    if (dry.includes(selection.provider)) throw exhaustedError(input.principal, selection.provider);
    dry.push(selection.provider);
    excluded.push(selection.provider);
  }
}

/** The selected bucket could not pay although the router offered it once more (a race). */
function exhaustedError(principal: Principal, provider: ProviderId) {
  return gatewayErrors.create('gateway_allocation_exhausted', {
    project: principal.projectSlug,
    buckets: [{ provider }],
  });
}
