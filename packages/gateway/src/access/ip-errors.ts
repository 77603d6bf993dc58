import type { AppError } from '@app/http-kit';
import { gatewayErrors } from '../errors.ts';
import type { IpAddress } from './ip.ts';

/**
 * The 403 for an IP block. It names the address the gateway saw; for IPv6 it explains the
 * usual cause (a dual-stack client picked IPv6 while the allowlist holds IPv4 ranges) and
 * both fixes.
 */
export function ipNotAllowed(
  seen: { address: IpAddress | undefined; text: string },
  project?: string,
): AppError {
  const list =
    project === undefined ? "the gateway's IP allowlist" : `the IP allowlist of project '${project}'`;
  let reason = `Requests from ${seen.text} are not allowed by ${list}.`;
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
