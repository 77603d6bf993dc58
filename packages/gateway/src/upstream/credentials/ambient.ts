/**
 * Auth types whose credential is the machine's own identity, found by the vendor's library at
 * the first request rather than read from a location at start-up.
 */
import type { AuthEntry, AuthType } from './schema.ts';

export const AMBIENT_AUTH_TYPES: ReadonlySet<AuthType> = new Set<AuthType>([
  'aws-default-chain',
  'google-adc',
  'azure-managed-identity',
  'azure-default',
]);

export function isAmbient(entry: Pick<AuthEntry, 'type'>): boolean {
  return AMBIENT_AUTH_TYPES.has(entry.type);
}
