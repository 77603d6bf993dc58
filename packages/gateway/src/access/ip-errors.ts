import type { AppError } from '@app/http-kit';
import type { FastifyRequest } from 'fastify';
import { gatewayErrors } from '../errors.ts';
import { clientAddress, type IpAddress, type IpRange, inRanges, parseRanges } from './ip.ts';

/** The allowlist that refused a client, as the 403 names it. */
export type Allowlist = 'gateway' | 'admin API' | { readonly project: string };

function listName(list: Allowlist): string {
  if (list === 'gateway') return "the gateway's IP allowlist";
  if (list === 'admin API') return "the admin API's IP allowlist";
  return `the IP allowlist of project '${list.project}'`;
}

/**
 * The 403 for an IP block. It names the address the gateway saw; for IPv6 it explains the
 * usual cause (a dual-stack client picked IPv6 while the allowlist holds IPv4 ranges) and
 * both fixes.
 */
export function ipNotAllowed(
  seen: { address: IpAddress | undefined; text: string },
  list: Allowlist,
): AppError {
  let reason = `Requests from ${seen.text} are not allowed by ${listName(list)}.`;
  if (seen.address?.kind() === 'ipv6') {
    reason +=
      ` Your client connected over IPv6 (${seen.text}) and the allowlist has no IPv6 range containing that address.` +
      ` Either ask an admin to add your IPv6 address or network (e.g. ${seen.text}/128 or your /64 prefix)` +
      ` to the allowlist, or connect over IPv4 (e.g. curl -4, or the gateway's IPv4 address instead of its host name).`;
  } else {
    reason += ' Ask an admin to add your address or network to the allowlist.';
  }
  return gatewayErrors.create('gateway_ip_not_allowed', { reason });
}

/** A configured allowlist; an invalid entry stops the start-up, naming the setting. */
export function configuredRanges(entries: readonly string[], name: string): IpRange[] {
  const parsed = parseRanges(entries);
  if (parsed.invalid.length > 0)
    throw new Error(`access.${name}: not an IPv4/IPv6 address or CIDR: ${parsed.invalid.join(', ')}`);
  return parsed.ranges;
}

/**
 * Refuses a client outside `ranges` (403 gateway_ip_not_allowed). The client is the peer, or
 * behind `trusted` proxies the first untrusted X-Forwarded-For hop; the address is parsed only
 * when there are ranges to check.
 */
export function addressCheck(trusted: readonly IpRange[]) {
  return (request: FastifyRequest, ranges: readonly IpRange[], list: Allowlist): void => {
    if (ranges.length === 0) return;
    const seen = clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], trusted);
    if (!(seen.address && inRanges(seen.address, ranges))) throw ipNotAllowed(seen, list);
  };
}
