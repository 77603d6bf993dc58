/** Usage on the project page and the page of one token: buckets, spend per day, per token. */
import { formatUsd } from '../../money.ts';
import { html } from '@app/http-kit';
import { metersPresent } from '../../db/usage-meters.ts';
import type { BucketUsage, DaySpend, TokenUsage } from '../usage-data.ts';
import { spendChart } from './chart.ts';
import { type Chrome, page, projectTrail } from './layout.ts';

export interface ProjectUsage {
  readonly buckets: readonly BucketUsage[];
  readonly days: readonly DaySpend[];
  readonly tokens: readonly TokenUsage[];
  /** Project admins see every member's tokens; others their own. */
  readonly allTokens: boolean;
}

export function bucketsTable(buckets: readonly BucketUsage[]) {
  if (buckets.length === 0) return html`<p>No allocation yet.</p>`;
  // One column per meter any bucket used, whatever the meter: a new one needs no change here.
  const meters = metersPresent(buckets);
  return html`<table class="usage">
    <caption>
      Usage per provider bucket
    </caption>
    <thead>
      <tr>
        <th scope="col">Provider</th>
        <th scope="col">Allocation</th>
        <th scope="col">Spent</th>
        <th scope="col">Reserved</th>
        <th scope="col">Remaining</th>
        <th scope="col">Requests</th>
        ${meters.map((meter) => html`<th scope="col" class="meter">${meter}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${buckets.map(
        (b) =>
          html`<tr>
            <th scope="row">${b.provider}</th>
            <td>${formatUsd(b.allocatedMicros)}</td>
            <td>${formatUsd(b.spentMicros)}</td>
            <td>${formatUsd(b.reservedMicros)}</td>
            <td>${formatUsd(b.remainingMicros)}</td>
            <td>${b.requests}</td>
            ${meters.map((meter) => html`<td>${b.meters[meter] ?? 0}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function tokensUsageTable(slug: string, usage: ProjectUsage) {
  if (usage.tokens.length === 0) return html`<p>No tokens yet.</p>`;
  return html`<table>
    <caption>
      ${usage.allTokens ? 'Spend per token' : 'Spend per token (yours)'}
    </caption>
    <thead>
      <tr>
        <th scope="col">Token</th>
        ${usage.allTokens ? html`<th scope="col">Owner</th>` : ''}
        <th scope="col">Requests</th>
        <th scope="col">Spent</th>
      </tr>
    </thead>
    <tbody>
      ${usage.tokens.map(
        (t) =>
          html`<tr>
            <th scope="row">
              <a href="/dashboard/projects/${slug}/tokens/${t.jti}">${t.description || '(no description)'}</a>
            </th>
            ${usage.allTokens ? html`<td>${t.owner}</td>` : ''}
            <td>${t.requests}</td>
            <td>${formatUsd(t.spentMicros)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The usage section of the project page. */
export function usageSection(slug: string, usage: ProjectUsage) {
  return html`<section aria-labelledby="usage">
    <h2 id="usage">Usage</h2>
    ${bucketsTable(usage.buckets)}
    <p class="hint">
      Spent: cost of finished requests. Reserved: held for requests still running. Remaining: allocation minus
      both. The columns after Requests are the totals of each meter charged (tokens by kind, web search calls,
      ...).
    </p>
    ${spendChart({ id: 'project-spend', title: `Spend per day of project ${slug}`, days: usage.days })}
    ${tokensUsageTable(slug, usage)}
  </section>`;
}

export function tokenUsagePage(
  chrome: Chrome,
  input: { slug: string; token: TokenUsage; days: readonly DaySpend[] },
): string {
  const { slug, token } = input;
  const name = token.description || '(no description)';
  return page(
    `Token ${name}`,
    {
      ...chrome,
      trail: projectTrail(slug),
    },
    html`<dl class="facts">
        <dt>Owner</dt>
        <dd>${token.owner}</dd>
        <dt>Requests</dt>
        <dd>${token.requests}</dd>
        <dt>Spent</dt>
        <dd>${formatUsd(token.spentMicros)}</dd>
      </dl>
      ${spendChart({ id: 'token-spend', title: `Spend per day of token ${name}`, days: input.days })}`,
  );
}
