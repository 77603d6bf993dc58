const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses `45s`, `30m`, `12h`, `7d` into milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,8})(s|m|h|d)$/.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * The longest duration a setting may hold (100 years): the settings' pattern alone lets
 * through lengths that parse to nothing (ten digits and more) or to an expiry no date can
 * hold; those would be replaced silently by a default, or fail when used.
 */
export const MAX_DURATION_DAYS = 36_500;

/** Whether `text` is a duration the gateway can honour: it parses, and to at most MAX_DURATION_DAYS. */
export function honouredDuration(text: string): boolean {
  return (parseDuration(text) ?? Infinity) <= MAX_DURATION_DAYS * UNIT_MS.d;
}
