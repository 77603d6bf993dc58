import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

export interface IpRange {
  readonly address: IpAddress;
  readonly bits: number;
  /** As configured, for messages. */
  readonly text: string;
}

/**
 * Parses one address as a client or proxy writes it: plain, `[v6]`, `[v6]:port`, `v4:port`,
 * with a zone (`fe80::1%eth0`). IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes the IPv4
 * address, so one IPv4 range covers clients of dual-stack sockets too.
 */
export function parseAddress(raw: string): IpAddress | undefined {
  let text = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed?.[1]) text = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (!ipaddr.isValid(text)) return undefined;
  return ipaddr.process(text);
}

/** A CIDR (`10.0.0.0/8`, `2001:db8::/32`) or a single address; undefined when invalid. */
export function parseRange(raw: string): IpRange | undefined {
  const text = raw.trim();
  if (!text.includes('/')) {
    const address = parseAddress(text);
    if (!address) return undefined;
    return { address, bits: address.kind() === 'ipv4' ? 32 : 128, text };
  }
  if (!ipaddr.isValidCIDR(text)) return undefined;
  const [address, bits] = ipaddr.parseCIDR(text);
  // ::ffff:10.0.0.0/104 means IPv4 10.0.0.0/8; clients are normalised to IPv4, so the range is too.
  if (address.kind() === 'ipv6' && bits >= 96) {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return { address: v6.toIPv4Address(), bits: bits - 96, text };
  }
  return { address, bits, text };
}

/** Parses a list whose entries may themselves be comma-separated (env values). */
export function parseRanges(entries: readonly string[]): { ranges: IpRange[]; invalid: string[] } {
  const ranges: IpRange[] = [];
  const invalid: string[] = [];
  for (const entry of entries.flatMap((e) => e.split(','))) {
    if (entry.trim() === '') continue;
    const range = parseRange(entry);
    if (range) ranges.push(range);
    else invalid.push(entry.trim());
  }
  return { ranges, invalid };
}

export function inRanges(address: IpAddress, ranges: readonly IpRange[]): boolean {
  const kind = address.kind();
  for (const range of ranges) {
    if (range.address.kind() !== kind) continue;
    // Same kind checked above; ipaddr's match overloads need the concrete pair.
    if ((address as ipaddr.IPv4).match(range.address as ipaddr.IPv4, range.bits)) return true;
  }
  return false;
}

/**
 * The client address: the socket peer, unless the peer is a trusted proxy; then
 * X-Forwarded-For is walked right to left, skipping trusted hops, and the first untrusted
 * hop is the client (a client can prepend anything, so entries left of it are never used).
 * Returns the raw text when it cannot be parsed so the block message still names it.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: readonly IpRange[],
): { address: IpAddress | undefined; text: string } {
  const peerText = peer ?? 'unknown';
  let current = parseAddress(peerText);
  let text = current ? current.toString() : peerText;
  if (!current || trusted.length === 0 || !inRanges(current, trusted)) return { address: current, text };
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] ?? '';
    current = parseAddress(hop);
    text = current ? current.toString() : hop;
    if (!current || !inRanges(current, trusted)) return { address: current, text };
  }
  return { address: current, text };
}
