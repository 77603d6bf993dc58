/** Pages and forms for admins: a project's IP allowlist and its audit trail. */
import type { AuditEvent, AuditPage } from '../../access/audit.ts';
import type { AuditAction } from '../../db/schema.ts';
import { type Html, html } from '@app/http-kit';
import { type Chrome, csrfField, formatDate, page, projectTrail, withTimes } from './layout.ts';

export interface IpAllowState {
  readonly current: readonly string[];
  /** The validation message of a refused change, shown above the form. */
  readonly problem?: string;
  /** What the admin typed, kept when it was refused. */
  readonly draft?: string;
}

/** Gateway admins edit the allowlist; everyone who sees the project sees what it is. */
export function ipAllowSection(chrome: Chrome, slug: string, state: IpAllowState, editable: boolean) {
  const current = state.current.length > 0 ? state.current.join(', ') : 'any address';
  const form = editable
    ? html`${state.problem ? html`<p role="alert" class="error" id="ip-allow-problem">${state.problem}</p>` : ''}
        <form method="post" action="/dashboard/projects/${slug}/ip-allow">
          ${csrfField(chrome.csrf)}
          <p>
            <label for="ip-allow">Allowed addresses</label><br /><textarea
              id="ip-allow"
              name="ipAllow"
              rows="3"
              cols="40"
              aria-describedby="ip-allow-hint${state.problem ? ' ip-allow-problem' : ''}"
              ${state.problem ? html`aria-invalid="true"` : ''}
            >
${state.draft ?? state.current.join('\n')}</textarea>
            <br /><span id="ip-allow-hint" class="hint"
              >IPv4/IPv6 addresses or CIDR ranges, one per line or comma-separated, e.g. 203.0.113.0/24 or
              2001:db8::/48. Empty: any address. Takes effect within a second.</span
            >
          </p>
          <p><button type="submit">Save IP allowlist</button></p>
        </form>`
    : '';
  return html`<section aria-labelledby="ip">
    <h2 id="ip">IP allowlist</h2>
    <p>Tokens of this project are accepted from: <strong id="ip-allow-current">${current}</strong></p>
    ${form}
  </section>`;
}

const ACTION_TEXT: Record<AuditAction, string> = {
  'project.create': 'project created',
  'project.ip_allow': 'IP allowlist changed',
  'membership.request': 'membership requested',
  'membership.approve': 'membership approved',
  'membership.revoke': 'membership revoked',
  'allocation.set': 'allocation set',
  'token.issue': 'token issued',
  'token.revoke': 'token revoked',
  'limits.set': 'rate limits set',
  'user.create': 'user created',
  'admin_key.create': 'admin key created',
  'admin_key.revoke': 'admin key revoked',
  'alerts.set': 'budget alerts set',
  'alerts.rotate_secret': 'webhook secret rotated',
  'alerts.dismiss': 'budget alert dismissed',
};

/** How the trail marks who is not a signed-in user. */
function actorHint(event: AuditEvent): Html | string {
  if (event.actorIsUser) return '';
  return html` <span class="hint">(${event.actorAdminKeyId === null ? 'operator' : 'admin API'})</span>`;
}

export function auditPage(
  chrome: Chrome,
  input: { slug: string; trail: AuditPage; newest: boolean },
): string {
  const { slug, trail } = input;
  const rows = trail.events.map(
    (event) =>
      html`<tr>
        <td>${formatDate(event.createdAt)}</td>
        <td>${event.actor}${actorHint(event)}</td>
        <td>${ACTION_TEXT[event.action]}</td>
        <td>${event.subject}</td>
        <td>${withTimes(event.detail)}</td>
      </tr>`,
  );
  const older =
    trail.olderBefore === undefined
      ? ''
      : html`<a rel="next" href="/dashboard/projects/${slug}/audit?before=${trail.olderBefore}"
          >Older events</a
        >`;
  const newer = input.newest ? '' : html`<a href="/dashboard/projects/${slug}/audit">Newest events</a>`;
  return page(
    'Audit trail',
    {
      ...chrome,
      trail: projectTrail(slug),
    },
    html`<p>
        Who changed what in project ${slug}: tokens, memberships, allocations, the IP allowlist. Newest first.
      </p>
      ${
        trail.events.length === 0
          ? html`<p>No events.</p>`
          : html`<table>
              <caption>
                Audit trail of ${slug}
              </caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">Concerning</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`
      }
      <nav aria-label="Pages" class="pager">${newer} ${older}</nav>`,
  );
}
