/** Test helper: the counts a response's X-Gateway-Compression header reports, read as the RFC 8941 dictionary it is. */
import { parseDictionary } from 'structured-headers';

export function compressionCounts(headers: {
  get(name: string): string | null;
}): { before: number; after: number } | undefined {
  const raw = headers.get('x-gateway-compression');
  if (raw === null) return undefined;
  const dictionary = parseDictionary(raw);
  return {
    before: dictionary.get('input-tokens-before')?.[0] as number,
    after: dictionary.get('input-tokens-after')?.[0] as number,
  };
}
