import type { TokenSource } from '../../contracts.ts';

/** Where the Gemini routes read the token, first present wins (docs/gateway/gemini-api.md). */
export const GEMINI_TOKEN_SOURCES: readonly TokenSource[] = [
  { kind: 'bearer' },
  { kind: 'header', name: 'x-goog-api-key' },
  { kind: 'query', name: 'key' },
];
