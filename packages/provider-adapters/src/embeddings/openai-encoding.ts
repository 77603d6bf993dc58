/**
 * OpenAI's embeddings answer, which the gateway gives every client whatever the upstream:
 * vectors as JSON numbers, or (`encoding_format: "base64"`) as base64 of their little-endian
 * float32 bytes, which is what OpenAI's SDKs ask for by default and decode themselves.
 */
import type { EmbeddingEncoding, EmbeddingsResult } from '../model/embeddings.ts';

export function encodeFloat32Base64(vector: readonly number[]): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] ?? 0, true);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The vector in a base64 float32 string; undefined when it is not one (length not a multiple of 4). */
export function decodeFloat32Base64(text: string): number[] | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength % 4 !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Array<number>(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

export interface OpenAIEmbeddingsEnvelope {
  /** The model named in the answer (the client's, or the exact version served). */
  readonly model: string;
  readonly encoding: EmbeddingEncoding;
  /** What the request cost in US dollars, as `usage.cost` (the gateway's answers carry it). */
  readonly cost?: number;
}

/** The JSON body of an OpenAI `POST /v1/embeddings` answer. */
export function encodeOpenAIEmbeddings(result: EmbeddingsResult, envelope: OpenAIEmbeddingsEnvelope): string {
  const data = result.vectors.map((vector, index) => ({
    object: 'embedding',
    index,
    embedding: envelope.encoding === 'base64' ? encodeFloat32Base64(vector) : vector,
  }));
  const tokens = result.usage.inputTokens;
  return JSON.stringify({
    object: 'list',
    data,
    model: envelope.model,
    usage: {
      prompt_tokens: tokens,
      total_tokens: tokens,
      ...(envelope.cost === undefined ? {} : { cost: envelope.cost }),
    },
  });
}
