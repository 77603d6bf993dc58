/** The project page's budget alerts: the banner of crossed thresholds and the settings form. */
import { type Html, html } from '@app/http-kit';
import type { ActiveAlert } from '../../alerts/active.ts';
import type { AlertSettings } from '../../alerts/settings.ts';
import { formatUsd } from '../../money.ts';
import { type Chrome, csrfField, fieldProblem, formatDate } from './layout.ts';

/** What the settings form shows after a post: a refusal next to its field, or a new secret once. */
export interface AlertFormState {
  readonly problem?: { readonly field: 'thresholds' | 'webhook'; readonly message: string };
  readonly thresholds?: string;
  readonly webhookUrl?: string;
  /** Just generated: shown on this page only. */
  readonly newSecret?: string;
  readonly saved?: boolean;
}

const percent = (alert: ActiveAlert) =>
  alert.allocatedMicros > 0 ? Math.floor((alert.spentMicros * 100) / alert.allocatedMicros) : 0;

export function alertBanner(
  chrome: Chrome,
  slug: string,
  alerts: readonly ActiveAlert[],
  canDismiss: boolean,
): Html | string {
  if (alerts.length === 0) return '';
  const dismiss = canDismiss
    ? html`<form method="post" action="/dashboard/projects/${slug}/alerts/dismiss" class="inline">
        ${csrfField(chrome.csrf)}<button type="submit">Dismiss</button>
      </form>`
    : '';
  return html`<section class="budget-alert" role="alert" aria-labelledby="budget-alert-title">
    <h2 id="budget-alert-title">Budget alert</h2>
    <ul>
      ${alerts.map(
        (alert) =>
          html`<li data-bucket="${alert.provider}">
            <strong>${alert.provider}</strong> crossed <strong>${alert.threshold}%</strong> of its allocation:
            ${formatUsd(alert.spentMicros)} of ${formatUsd(alert.allocatedMicros)} spent (${percent(alert)}%)
            at ${formatDate(alert.crossedAt)}.
          </li>`,
      )}
    </ul>
    <p class="hint">Shown until the allocation is set again or a project admin dismisses it.</p>
    ${dismiss}
  </section>`;
}

function secretNotice(chrome: Chrome, slug: string, settings: AlertSettings, state: AlertFormState) {
  if (state.newSecret)
    return html`<div class="new-token">
      <p>
        <label for="webhook-secret">Webhook signing secret</label> (shown this once: copy it into your
        receiver now)<br /><input id="webhook-secret" class="token" readonly value="${state.newSecret}" />
      </p>
    </div>`;
  if (!settings.webhookUrl) return '';
  return html`<form method="post" action="/dashboard/projects/${slug}/alerts/rotate-secret">
    ${csrfField(chrome.csrf)}
    <p>
      The webhook is signed with a secret shown when it was made.
      <button type="submit">Rotate the signing secret</button>
    </p>
  </form>`;
}

export function alertSettingsSection(
  chrome: Chrome,
  slug: string,
  settings: AlertSettings,
  state: AlertFormState = {},
): Html {
  const problemAt = (field: 'thresholds' | 'webhook', hint?: string) =>
    fieldProblem(field, state.problem?.field === field ? state.problem.message : undefined, hint);
  const [thresholds, webhook] = [
    problemAt('thresholds', 'thresholds-hint'),
    problemAt('webhook', 'webhook-hint'),
  ];
  return html`<section aria-labelledby="alerts">
    <h2 id="alerts">Budget alerts</h2>
    ${state.saved ? html`<p role="status" class="notice">Alert settings saved.</p>` : ''}
    <form method="post" action="/dashboard/projects/${slug}/alerts">
      ${csrfField(chrome.csrf)}
      <p>
        <label for="thresholds">Thresholds (percent of each allocation)</label><br />${thresholds.text}<input
          id="thresholds"
          name="thresholds"
          required
          value="${state.thresholds ?? settings.thresholds.join(',')}"
          ${thresholds.attributes}
        />
        <span id="thresholds-hint" class="hint">Comma-separated whole percentages, e.g. 50,80,100.</span>
      </p>
      <p>
        <label for="webhook">Webhook URL</label><br />${webhook.text}<input
          id="webhook"
          name="webhook"
          type="url"
          value="${state.webhookUrl ?? settings.webhookUrl ?? ''}"
          ${webhook.attributes}
        />
        <span id="webhook-hint" class="hint">https; empty: no webhook (alerts still show here).</span>
      </p>
      <p><button type="submit">Save alert settings</button></p>
    </form>
    ${secretNotice(chrome, slug, settings, state)}
  </section>`;
}
