/** The dashboard's home and project pages. */
import { PROVIDERS } from '../../contracts.ts';
import type { MemberRow, ProjectMembership, ProjectView } from '../../access/directory.ts';
import type { MembershipStatus } from '../../db/schema.ts';
import { type Html, html } from '@app/http-kit';
import { type IpAllowState, ipAllowSection } from './admin.ts';
import { type AlertFormState, alertBanner, alertSettingsSection } from './alerts.ts';
import type { ActiveAlert } from '../../alerts/active.ts';
import type { AlertSettings } from '../../alerts/settings.ts';
import { confirmPage } from './confirm.ts';
import { type Chrome, csrfField, fieldProblem, formatDate, page } from './layout.ts';
import { type ProjectUsage, usageSection } from './usage.ts';

export function signInPage(problem?: string): string {
  return page(
    'Sign in',
    {},
    html`${problem ? html`<p role="alert" class="error">${problem}</p>` : ''}
      <p>
        Sign in with your organisation's identity provider to manage your projects and personal access tokens.
      </p>
      <p><a class="button" href="/dashboard/login">Sign in</a></p>`,
  );
}

const STATUS_TEXT = {
  approved: 'member',
  pending: 'membership requested',
  revoked: 'membership revoked',
} as const;

/** A membership in words, the same on every page: an approved project admin is "project admin". */
export function membershipText(membership: { status: MembershipStatus; isAdmin: boolean }): string {
  return membership.status === 'approved' && membership.isAdmin
    ? 'project admin'
    : STATUS_TEXT[membership.status];
}

/** What became of the membership form just posted, shown above it. */
export type JoinOutcome = { readonly sent: string } | { readonly problem: string };

function joinOutcome(outcome: JoinOutcome | undefined): Html {
  if (!outcome) return html``;
  if ('problem' in outcome) return html`<p role="alert" class="error">${outcome.problem}</p>`;
  // The same words whether the project exists or not: the form tells nobody which names exist.
  return html`<p role="status" class="notice">
    Request sent for project <strong>${outcome.sent}</strong>. A project admin will review it; the project is
    listed above once your membership is approved. If nothing happens, check the project's name with its
    admin: a name that no project has is not reported.
  </p>`;
}

export function homePage(
  chrome: Chrome,
  input: {
    memberships: readonly ProjectMembership[];
    isAdmin: boolean;
    allProjects: readonly string[];
    join?: JoinOutcome;
  },
): string {
  const mine = input.memberships.length
    ? html`<ul class="projects">
        ${input.memberships.map(
          (m) =>
            html`<li>
              <a href="/dashboard/projects/${m.slug}">${m.slug}</a>
              <span class="status">${membershipText(m)}</span>
            </li>`,
        )}
      </ul>`
    : html`<p>
        You are not a member of any project yet. Ask a project admin for the project's name and request
        membership below; the project is listed here once a project admin approves.
      </p>`;
  const admin = input.isAdmin
    ? html`<section aria-labelledby="all-projects">
        <h2 id="all-projects">All projects (gateway admin)</h2>
        <ul class="projects">
          ${input.allProjects.map((slug) => html`<li><a href="/dashboard/projects/${slug}">${slug}</a></li>`)}
        </ul>
        <form method="post" action="/dashboard/projects">
          ${csrfField(chrome.csrf)}
          <p>
            <label for="new-project">Project name</label><br /><input
              id="new-project"
              name="slug"
              required
              pattern="[a-z0-9][a-z0-9\\-]{0,62}"
              aria-describedby="new-project-hint"
            />
            <span id="new-project-hint" class="hint">Lower-case letters, digits and '-'.</span>
          </p>
          <p><button type="submit">Create project</button></p>
        </form>
      </section>`
    : '';
  return page(
    'Your projects',
    chrome,
    html`<section aria-labelledby="mine">
        <h2 id="mine">Projects</h2>
        ${mine}
      </section>
      <section aria-labelledby="join">
        <h2 id="join">Request membership</h2>
        ${joinOutcome(input.join)}
        <form method="post" action="/dashboard/memberships">
          ${csrfField(chrome.csrf)}
          <p>
            <label for="join-project">Project name</label><br /><input
              id="join-project"
              name="slug"
              required
            />
          </p>
          <p><button type="submit">Request membership</button></p>
        </form>
      </section>
      ${admin}`,
  );
}

/** A refused allocation: why, next to the field at fault, and what was chosen and typed. */
export interface AllocationState {
  readonly problem: string;
  readonly field: 'provider' | 'usd';
  readonly provider: string;
  readonly usd: string;
}

function allocationForm(chrome: Chrome, slug: string, refused: AllocationState | undefined) {
  const problemAt = (field: AllocationState['field']) =>
    fieldProblem(field, refused?.field === field ? refused.problem : undefined);
  const [provider, usd] = [problemAt('provider'), problemAt('usd')];
  return html`<form method="post" action="/dashboard/projects/${slug}/allocations">
    ${csrfField(chrome.csrf)}
    <p>
      <label for="bucket">Provider bucket</label><br />${provider.text}<select
        id="bucket"
        name="provider"
        ${provider.attributes}
      >
        ${PROVIDERS.map(
          (p) => html`<option value="${p}" ${refused?.provider === p ? html`selected` : ''}>${p}</option>`,
        )}
      </select>
    </p>
    <p>
      <label for="usd">Allocation in US dollars</label><br />${usd.text}<input
        id="usd"
        name="usd"
        type="number"
        min="0"
        step="0.01"
        required
        value="${refused?.usd ?? ''}"
        ${usd.attributes}
      />
    </p>
    <p><button type="submit">Set allocation</button></p>
  </form>`;
}

/** Asked before a membership is revoked: the page's form posts the revocation again, confirmed. */
export function revokeMemberPage(chrome: Chrome, input: { slug: string; email: string }): string {
  return confirmPage(chrome, {
    title: `Revoke the membership of ${input.email}?`,
    question: html`<strong>${input.email}</strong> can no longer see project ${input.slug}, and their tokens
      for it stop working within a second. They can ask to join again; a project admin must approve them
      again.`,
    action: `/dashboard/projects/${input.slug}/members/revoke`,
    fields: { email: input.email },
    confirmLabel: 'Revoke membership',
    cancelHref: `/dashboard/projects/${input.slug}`,
  });
}

function memberActions(chrome: Chrome, slug: string, member: MemberRow) {
  const action = (what: 'approve' | 'revoke', label: string) =>
    html`<form method="post" action="/dashboard/projects/${slug}/members/${what}" class="inline">
      ${csrfField(chrome.csrf)}<input type="hidden" name="email" value="${member.email}" /><button
        type="submit"
        aria-label="${label} ${member.email}"
      >
        ${label}
      </button>
    </form>`;
  if (member.status === 'approved') return action('revoke', 'Revoke');
  return action('approve', 'Approve');
}

function membersTable(chrome: Chrome, slug: string, members: readonly MemberRow[]) {
  return html`<table class="stack">
    <caption>
      Members
    </caption>
    <thead>
      <tr>
        <th scope="col">Email</th>
        <th scope="col">Status</th>
        <th scope="col">Requested</th>
        <th scope="col">Action</th>
      </tr>
    </thead>
    <tbody>
      ${members.map(
        (m) =>
          html`<tr>
            <th scope="row">${m.email}</th>
            <td data-label="Status">${membershipText(m)}</td>
            <td data-label="Requested">${formatDate(m.requestedAt)}</td>
            <td class="inline">${memberActions(chrome, slug, m)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function projectPage(
  chrome: Chrome,
  input: {
    view: ProjectView;
    members: readonly MemberRow[] | undefined;
    isGatewayAdmin: boolean;
    usage: ProjectUsage;
    ipAllow: IpAllowState;
    allocation?: AllocationState;
    /** Budget alerts: the banner's for everyone who sees the page, the settings for project admins. */
    alerts: { active: readonly ActiveAlert[]; settings?: AlertSettings; form?: AlertFormState };
  },
): string {
  const { view } = input;
  const status = view.membership ? membershipText(view.membership) : 'not a member (gateway admin view)';
  return page(
    `Project ${view.slug}`,
    { ...chrome, trail: [{ href: '/dashboard', label: 'Projects' }] },
    html`${alertBanner(chrome, view.slug, input.alerts.active, view.canAdminister)}
      <p>Your status: <strong>${status}</strong></p>
      <nav aria-label="Project">
        <ul class="actions">
          <li><a class="button" href="/dashboard/projects/${view.slug}/tokens">Personal access tokens</a></li>
          <li><a class="button" href="/dashboard/projects/${view.slug}/activity">Activity</a></li>
          ${
            view.canAdminister
              ? html`<li><a class="button" href="/dashboard/projects/${view.slug}/audit">Audit trail</a></li>`
              : ''
          }
        </ul>
      </nav>
      ${usageSection(view.slug, input.usage)}
      ${
        input.isGatewayAdmin
          ? html`<section aria-labelledby="allocate">
              <h2 id="allocate">Set an allocation</h2>
              ${allocationForm(chrome, view.slug, input.allocation)}
            </section>`
          : ''
      }
      ${
        input.alerts.settings
          ? alertSettingsSection(chrome, view.slug, input.alerts.settings, input.alerts.form)
          : ''
      }
      ${ipAllowSection(chrome, view.slug, input.ipAllow, input.isGatewayAdmin)}
      ${
        input.members
          ? html`<section aria-labelledby="members">
              <h2 id="members">Members</h2>
              ${membersTable(chrome, view.slug, input.members)}
            </section>`
          : ''
      }`,
  );
}
