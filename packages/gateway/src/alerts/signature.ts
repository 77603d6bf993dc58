/**
 * The webhook signature: HMAC-SHA256 over `<unix seconds>.<body>` with the project's secret,
 * sent as `X-Gateway-Signature: t=<unix seconds>,v1=<hex>`. The timestamp is signed so that a
 * captured request cannot be replayed later than the receiver's tolerance.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-gateway-signature';
export const IDEMPOTENCY_HEADER = 'x-gateway-idempotency-key';

export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * What a receiver does (docs/gateway/budget-alerts.md shows the same steps): recompute the MAC
 * over the raw body, compare in constant time, refuse a timestamp outside the tolerance.
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const fields = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const timestamp = Number(fields.get('t'));
  const given = Buffer.from(fields.get('v1') ?? '', 'hex');
  if (!Number.isInteger(timestamp)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}
