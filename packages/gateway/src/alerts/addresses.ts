/**
 * Which addresses a webhook may reach. A project admin chooses the URL, so without this the
 * gateway could be made to POST to internal services or the cloud metadata endpoint. The URL is
 * checked when it is set (an IP literal, or `localhost`), and every connection is checked again
 * after DNS resolution, because a public-looking name can resolve to a private address (or be
 * changed to, after the URL was accepted).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** `last_error` of an alert whose webhook host resolves to a refused address. */
export const PRIVATE_ADDRESS_ERROR = 'webhook host resolves to a private address';

/** The error code a refused connection fails with (what deliver.ts recognises). */
export const PRIVATE_ADDRESS_CODE = 'EWEBHOOKPRIVATE';

/**
 * True for an address in the global unicast space, as ipaddr.js classifies it. Everything else
 * is refused: private, loopback, link-local, unique-local, CGNAT, multicast, unspecified,
 * broadcast, reserved and documentation ranges, and IPv6 forms that embed an IPv4 address
 * (NAT64, 6to4, Teredo), which could lead to a private one. IPv4-mapped IPv6 is judged as IPv4.
 */
export function isPublicAddress(text: string): boolean {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zoneless = bare.split('%')[0] ?? '';
  if (!ipaddr.isValid(zoneless)) return false;
  return ipaddr.process(zoneless).range() === 'unicast';
}

/** An IP literal (bare or `[v6]`) as a URL's hostname may carry it. */
export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare);
}

/** Names that resolve to loopback by definition (RFC 6761), refused before any resolution. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

export class PrivateAddressError extends Error {
  readonly code = PRIVATE_ADDRESS_CODE;
  constructor() {
    super(PRIVATE_ADDRESS_ERROR);
    this.name = 'PrivateAddressError';
  }
}

/** The resolver `publicOnlyLookup` wraps: node's, or a test's. */
export type Resolve = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: Resolve = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * The `lookup` webhook sockets use (undici's `connect.lookup`). Unless `allowPrivate`, it
 * resolves every address of the name and fails the connection when any of them is not public:
 * checking only the one connected to would let a name with a public and a private address reach
 * the private one on a retry or through the other family. Undefined: node's own lookup.
 */
export function webhookLookup(options: {
  allowPrivate: boolean;
  resolve?: Resolve;
}): LookupFunction | undefined {
  const { allowPrivate, resolve = systemResolve } = options;
  if (allowPrivate && !options.resolve) return undefined;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      const first = addresses[0];
      if (error || !first) return callback(error ?? notFound(hostname), '');
      if (!allowPrivate && !addresses.every((entry) => isPublicAddress(entry.address)))
        return callback(new PrivateAddressError(), '');
      if (lookupOptions.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

const notFound = (hostname: string) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
