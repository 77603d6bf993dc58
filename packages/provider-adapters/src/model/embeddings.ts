/**
 * The internal embeddings request and result: what an OpenAI `POST /v1/embeddings` asks for,
 * in terms every embeddings upstream can be asked in. Inputs are texts or, as OpenAI also
 * takes them, arrays of token ids of the model's own tokenizer.
 */
import type { Meters } from './meters.ts';
import type { EndpointParams } from './profile.ts';

export type EmbeddingInput = string | readonly number[];

/** How the client wants the vectors: JSON numbers, or base64 of little-endian float32. */
export type EmbeddingEncoding = 'float' | 'base64';

export interface EmbeddingsRequest {
  /** At least one; answered in this order. */
  readonly inputs: readonly EmbeddingInput[];
  /** Shortened vectors, where the model can shorten them. */
  readonly dimensions?: number;
  readonly encoding: EmbeddingEncoding;
  /** The end user, for the provider's abuse monitoring (OpenAI's `user`). */
  readonly user?: string;
}

/** Where one offer's embeddings are asked: the upstream's model id and its endpoint. */
export interface EmbeddingsTarget {
  readonly upstreamModel: string;
  readonly endpoint: EndpointParams;
}

export interface EmbeddingsUsage {
  /** What the call consumed, priced like any other (meters.ts): embeddings fill `input` only. */
  readonly meters: Meters;
  readonly inputTokens: number;
  /** True when the upstream reported no count and the adapter estimated it (4 characters a token). */
  readonly estimated: boolean;
}

export interface EmbeddingsResult {
  /** One vector per input, in input order. */
  readonly vectors: readonly (readonly number[])[];
  readonly usage: EmbeddingsUsage;
}

/** One upstream answer (2xx) to one of the requests built for an embeddings call. */
export interface EmbeddingsReply {
  readonly body: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}
