/**
 * Provider selection and the budget reservation, together because they depend on each other:
 * the estimate needs the chosen provider's price, and a bucket that cannot pay sends an
 * automatic selection on to the next provider (an explicit provider is never replaced: the
 * router turns the exclusion into a 402 for it).
 */
import { isAppError } from '@app/http-kit';
import type {
  Ledger,
  Principal,
  ProviderId,
  Reservation,
  RoutePlan,
  Router,
  Selection,
} from '../contracts.ts';
import { reservationMicros } from './estimate.ts';

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
    /** Called with each selection before its reservation, so errors report the provider tried. */
    readonly onSelected: (selection: Selection) => void;
  },
): Promise<Reserved> {
  const excluded: ProviderId[] = [];
  for (;;) {
    const selection = await deps.router.select(input.plan, input.principal, input.needs, excluded);
    input.onSelected(selection);
    const estimateMicros = reservationMicros(
      input.promptTokens,
      input.outputTokens,
      selection.price,
      input.webSearches,
    );
    try {
      const reservation = await deps.ledger.reserve({
        principal: input.principal,
        provider: selection.provider,
        estimateMicros,
      });
      return { selection, reservation };
    } catch (error) {
      const exhausted = isAppError(error) && error.code === 'gateway_allocation_exhausted';
      // Another provider may still have budget; the router says so by selecting again (or by
      // throwing 402 itself once none is left, and at once for an explicit provider).
      if (!exhausted || excluded.includes(selection.provider)) throw error;
      excluded.push(selection.provider);
    }
  }
}
