/** The activity log of a project: its filter form, the requests with their attempts, the pager. */
import { type Html, html } from '@app/http-kit';
import { type ActivityFilter, filterQuery } from '../../activity/filter.ts';
import type { ActivityPage, ActivityRow } from '../../activity/query.ts';
import { PROVIDERS } from '../../contracts.ts';
import { metersPresent } from '../../db/usage-meters.ts';
import { formatUsd } from '../../money.ts';
import { type Chrome, page, projectTrail } from './layout.ts';

export interface ActivityChoices {
  /** The tokens the viewer may filter on (every token of the project for its admins). */
  readonly tokens: ReadonlyArray<{ readonly jti: string; readonly description: string }>;
  /** The project's members, for its admins; undefined for a member (who sees only their own). */
  readonly users?: ReadonlyArray<{ readonly id: number; readonly email: string }> | undefined;
}

export interface ActivityView {
  readonly slug: string;
  readonly filter: ActivityFilter;
  readonly page: ActivityPage;
  readonly choices: ActivityChoices;
}

const STATUSES = ['ok', 'error', 'aborted'] as const;

function option(value: string, label: string, chosen: string | undefined): Html {
  return html`<option value="${value}" ${value === chosen ? html`selected` : ''}>${label}</option>`;
}

function choice(name: string, label: string, options: Html[], chosen: string | undefined): Html {
  return html`<p>
    <label for="f-${name}">${label}</label><br /><select id="f-${name}" name="${name}">
      ${option('', 'Any', chosen)} ${options}
    </select>
  </p>`;
}

function filterForm(input: ActivityView): Html {
  const { filter, choices, slug } = input;
  const users = choices.users
    ? choice(
        'user',
        'User',
        choices.users.map((u) => option(String(u.id), u.email, filter.user?.toString())),
        filter.user?.toString(),
      )
    : '';
  const tokens = choices.tokens.map((t) => option(t.jti, t.description || t.jti, filter.token));
  const day = (name: 'from' | 'to', label: string) =>
    html`<p>
      <label for="f-${name}">${label}</label><br /><input
        id="f-${name}"
        name="${name}"
        type="date"
        value="${filter[name] ?? ''}"
      />
    </p>`;
  return html`<form method="get" action="/dashboard/projects/${slug}/activity" class="activity-filter">
    ${users} ${choice('token', 'Token', tokens, filter.token)}
    ${choice(
      'provider',
      'Provider',
      PROVIDERS.map((p) => option(p, p, filter.provider)),
      filter.provider,
    )}
    <p>
      <label for="f-model">Model</label><br /><input
        id="f-model"
        name="model"
        value="${filter.model ?? ''}"
        placeholder="exact version"
      />
    </p>
    ${choice(
      'status',
      'Status',
      STATUSES.map((s) => option(s, s, filter.status)),
      filter.status,
    )}
    ${day('from', 'From (UTC day)')} ${day('to', 'To (UTC day)')}
    <p><button type="submit">Filter</button></p>
  </form>`;
}

/** Request ids are UUIDs unless the client sent its own: shortened, whole in the tooltip. */
function requestCell(row: ActivityRow): Html {
  const id = row.requestId;
  const attempt = row.attempt === null ? '' : html` #${row.attempt}`;
  if (id === null) return html`unknown${attempt}`;
  const shown = id.length > 12 ? `${id.slice(0, 8)}…` : id;
  return html`<code title="${id}">${shown}</code>${attempt}`;
}

const ms = (value: number | null) => (value === null ? '' : `${value} ms`);

function statusText(row: ActivityRow): string {
  const outcome = row.outcome ?? row.status;
  return row.httpStatus === null ? outcome : `${outcome} (${row.httpStatus})`;
}

function attemptRow(row: ActivityRow, showUser: boolean, meters: readonly string[]): Html {
  const number = (value: number) => html`<td class="number">${value}</td>`;
  return html`<tr data-request="${row.requestId ?? ''}" data-attempt="${row.attempt ?? ''}">
    <td><time datetime="${row.createdAt}">${row.createdAt.slice(0, 19).replace('T', ' ')}</time></td>
    <td>${requestCell(row)}</td>
    ${showUser ? html`<td>${row.userEmail ?? `user ${row.userId}`}</td>` : ''}
    <td>${row.tokenDescription || row.tokenJti}</td>
    <td>${row.model ?? ''}</td>
    <td>${row.provider}</td>
    <td>${row.effort ?? ''}${row.tier ? ` / ${row.tier}` : ''}</td>
    ${meters.map((meter) => number(row.meters[meter] ?? 0))}
    <td class="number">${formatUsd(row.costMicros)}</td>
    <td class="number">${ms(row.latencyMs)}</td>
    <td class="number">${ms(row.firstTokenMs)}</td>
    <td>${statusText(row)}</td>
  </tr>`;
}

/** The page's rows by request, in the order of each request's newest row; attempts in order. */
export function byRequest(rows: readonly ActivityRow[]): ActivityRow[][] {
  const groups = new Map<string, ActivityRow[]>();
  for (const row of rows) {
    const key = row.requestId ?? `row ${row.id}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()].map((group) =>
    group.sort((a, b) => (a.attempt ?? 0) - (b.attempt ?? 0) || a.id - b.id),
  );
}

function activityTable(input: ActivityView): Html {
  const showUser = input.choices.users !== undefined;
  if (input.page.rows.length === 0) return html`<p>No requests match.</p>`;
  // One column per meter the page's rows used, whatever the meter: a new one needs no change here.
  const meters = metersPresent(input.page.rows);
  return html`<div class="scroll">
    <table class="activity">
      <caption>
        Requests of ${input.slug}, newest first; each upstream attempt on its own line
      </caption>
      <thead>
        <tr>
          <th scope="col">Time (UTC)</th>
          <th scope="col">Request, attempt</th>
          ${showUser ? html`<th scope="col">User</th>` : ''}
          <th scope="col">Token</th>
          <th scope="col">Model</th>
          <th scope="col">Provider</th>
          <th scope="col">Effort / tier</th>
          ${meters.map((meter) => html`<th scope="col" class="meter">${meter}</th>`)}
          <th scope="col">Cost</th>
          <th scope="col">Latency</th>
          <th scope="col">First token</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      ${byRequest(input.page.rows).map(
        (group) =>
          html`<tbody>
            ${group.map((row) => attemptRow(row, showUser, meters))}
          </tbody>`,
      )}
    </table>
  </div>`;
}

function pager(input: ActivityView): Html {
  const base = `/dashboard/projects/${input.slug}/activity`;
  const { older, newer } = input.page;
  const link = (rel: string, label: string, extra: Record<string, number>) =>
    html`<a rel="${rel}" href="${base}${filterQuery(input.filter, extra)}">${label}</a>`;
  return html`<nav aria-label="Pages" class="pager">
    ${newer === undefined ? '' : link('prev', 'Newer', { after: newer })}
    ${older === undefined ? '' : link('next', 'Older', { before: older })}
  </nav>`;
}

export function activityPageView(chrome: Chrome, input: ActivityView): string {
  const csv = `/dashboard/projects/${input.slug}/activity.csv${filterQuery(input.filter)}`;
  const whose = input.choices.users ? "Every member's requests" : 'Your requests';
  return page(
    'Activity',
    { ...chrome, trail: projectTrail(input.slug) },
    html`<p>
        ${whose} that reached a provider, newest first. A request that failed over or was retried shows each
        attempt. Requests refused before reaching a provider (401, 402, 429) are not listed.
      </p>
      ${filterForm(input)}
      <p><a class="button secondary" href="${csv}" download>Download CSV</a></p>
      ${activityTable(input)} ${pager(input)}`,
  );
}
