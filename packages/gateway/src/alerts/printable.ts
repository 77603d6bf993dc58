/**
 * Text from a receiver made safe to store and show: whitespace runs become one space, and control
 * and format characters (terminal escapes, NUL, bidirectional overrides) are removed, so a
 * receiver's answer cannot repaint a terminal or disguise itself where it is shown.
 */
export function printable(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .trim();
}
