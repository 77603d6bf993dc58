import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

/** Configuration of budget alerts (section `alerts`; docs/gateway/budget-alerts.md). */
export const AlertsConfigSchema = Type.Object(
  {
    checkMs: Type.Integer({
      minimum: 50,
      maximum: 3_600_000,
      default: 10_000,
      description:
        'How often each instance compares spend with the alert thresholds and sends due webhooks (the latency of an alert)',
    }),
    retryBaseMs: Type.Integer({
      minimum: 10,
      maximum: 3_600_000,
      default: 10_000,
      description:
        'Wait after the first failed webhook attempt; doubled after each further failure (with jitter)',
    }),
    retryCapMs: Type.Integer({
      minimum: 10,
      maximum: 86_400_000,
      default: 3_600_000,
      description: 'Longest wait between two webhook attempts',
    }),
    giveUpMs: Type.Integer({
      minimum: 1_000,
      maximum: 7 * 86_400_000,
      default: 86_400_000,
      description: 'A webhook not delivered this long after its crossing is marked failed (and logged)',
    }),
    timeoutMs: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 10_000,
      description: 'Time one webhook attempt may take, connection to response headers',
    }),
    allowHttp: Type.Union([Type.Literal('none'), Type.Literal('loopback'), Type.Literal('any')], {
      default: 'none',
      description:
        'Webhook URLs must be https; `loopback` also accepts http to localhost, 127.0.0.1 and [::1] (development), `any` every http URL',
    }),
    allowPrivate: Type.Boolean({
      default: false,
      description:
        'Lets webhooks reach private, loopback and link-local addresses (a receiver on the same machine or network); off: such a URL is refused, and so is a host name resolving to one',
    }),
  },
  { additionalProperties: false, default: {} },
);

export type AlertsConfig = Static<typeof AlertsConfigSchema>;

/** What a webhook URL may be and reach, checked alike by gatewayctl and the dashboard. */
export type WebhookPolicy = Pick<AlertsConfig, 'allowHttp' | 'allowPrivate'>;

export const ALERTS_ENV: EnvMapping = {
  checkMs: 'GATEWAY_ALERT_CHECK_MS',
  retryBaseMs: 'GATEWAY_ALERT_RETRY_BASE_MS',
  retryCapMs: 'GATEWAY_ALERT_RETRY_CAP_MS',
  giveUpMs: 'GATEWAY_ALERT_GIVE_UP_MS',
  timeoutMs: 'GATEWAY_ALERT_TIMEOUT_MS',
  allowHttp: 'GATEWAY_ALERT_WEBHOOK_ALLOW_HTTP',
  allowPrivate: 'GATEWAY_ALERT_WEBHOOK_ALLOW_PRIVATE',
};
