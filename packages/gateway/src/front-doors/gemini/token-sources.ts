import type { TokenSource } from '../../contracts.ts';

/** Where the Gemini routes read the token, first present wins (docs/gateway/gemini-api.md). */
export const GEMINI_TOKEN_SOURCES: readonly TokenSource[] = ['bearer', 'x-goog-api-key', 'key-query'];
