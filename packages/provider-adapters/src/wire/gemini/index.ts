/** The generateContent codec both Gemini adapters (Developer API and Vertex) are built from. */
export { mapGeminiError } from './errors.ts';
export { encodeGenerateContent } from './request.ts';
export { parseGenerateContent } from './response.ts';
export { createGeminiStreamTranslator } from './stream.ts';
export type { GeminiDialect, GeminiRequestBody } from './types.ts';
