/**
 * Keys for maps of long texts. V8 hashes a string of more than 16,383 characters by its length
 * alone, so a Map holding many long texts of one length compares each new one with all of them:
 * 2,000 keys of 20,000 characters took 5.3 s to insert, against 32 ms at 10,000 characters. A
 * long text is keyed by its length and SHA-256 digest instead (no collision to find), a short
 * one by itself.
 */
import { hash } from 'node:crypto';

/** The longest string V8 hashes by its content (String::kMaxHashCalcLength). */
export const V8_HASHED_CHARS = 16_383;

export function contentKey(text: string): string {
  return text.length > V8_HASHED_CHARS ? `#${text.length}:${hash('sha256', text, 'base64')}` : text;
}
