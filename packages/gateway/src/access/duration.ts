const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses `45s`, `30m`, `12h`, `7d` into milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,8})(s|m|h|d)$/.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
