/**
 * Deterministic embeddings: a text's vector is drawn from SHA-256 of the text (counter mode),
 * so the same text always gets the same vector whatever the API, and different texts get
 * unrelated ones. A shortened vector is the full vector's first components made unit length
 * again, as Matryoshka-trained models shorten theirs. Tokens are counted as the simulator
 * counts chat prompts: four characters a token.
 */
import { createHash } from 'node:crypto';

/** Components in [-1, 1) from the hash of `text` and a block number, 8 per SHA-256 block. */
function components(text: string, count: number): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < count; block++) {
    const digest = createHash('sha256').update(`${block}\n${text}`).digest();
    for (let offset = 0; offset < digest.length && values.length < count; offset += 4)
      values.push(digest.readUInt32LE(offset) / 2 ** 31 - 1);
  }
  return values;
}

/** The vector of `text` before it is made unit length (Titan's `normalize: false`). */
export function rawEmbeddingOf(text: string, dimensions: number): number[] {
  return components(text, dimensions);
}

/** A unit-length vector of `dimensions` components for `text`. */
export function embeddingOf(text: string, dimensions: number): number[] {
  const vector = components(text, dimensions);
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

/** Token ids embed as the text of their ids: deterministic, and distinct from any prose. */
export function tokenIdsText(ids: readonly number[]): string {
  return `\u0000tokens:${ids.join(',')}`;
}

export function textTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
