/** The spec's token flow: list, "Generate", "Token description", the token shown once. */
import type { TokenPolicy } from '../../access/admin-tokens.ts';
import type { OwnTokenRow } from '../../access/directory.ts';
import { parseDuration } from '../../access/duration.ts';
import { html } from '@app/http-kit';
import { confirmPage } from './confirm.ts';
import { type Chrome, csrfField, fieldProblem, formatDate, page, projectTrail } from './layout.ts';

export const COPY_SCRIPT = '/dashboard/assets/copy.js';

export interface NewToken {
  readonly token: string;
  readonly expiresAt: string;
  readonly description: string;
}

/** The breadcrumbs of the token pages: to the project, and to its token list from a page below it. */
export function tokensTrail(slug: string, throughList = false) {
  return [
    ...projectTrail(slug),
    ...(throughList ? [{ href: `/dashboard/projects/${slug}/tokens`, label: 'Personal access tokens' }] : []),
  ];
}

function newTokenPanel(created: NewToken) {
  return html`<section class="new-token" aria-labelledby="new-token-title">
    <h2 id="new-token-title">Token generated: ${created.description}</h2>
    <p>
      <strong>Copy it now: this is the only time it is shown.</strong> It expires
      ${formatDate(created.expiresAt)}.
    </p>
    <p>
      <label for="new-token">Your new personal access token</label><br />
      <input
        id="new-token"
        class="token"
        readonly
        value="${created.token}"
        spellcheck="false"
        autocomplete="off"
      />
      <button type="button" data-copy="new-token" hidden>Copy</button>
      <span data-copy-status role="status"></span>
    </p>
    <p class="hint">
      Send it as <code>Authorization: Bearer &lt;token&gt;</code>, e.g. as the API key of an OpenAI SDK with
      the gateway's <code>/v1</code> as base URL.
    </p>
  </section>`;
}

function tokensTable(chrome: Chrome, slug: string, tokens: readonly OwnTokenRow[]) {
  if (tokens.length === 0) return html`<p>You have no tokens for this project.</p>`;
  const revoke = (t: OwnTokenRow) =>
    t.state === 'active'
      ? html`<form method="post" action="/dashboard/projects/${slug}/tokens/${t.jti}/revoke" class="inline">
          ${csrfField(chrome.csrf)}<button type="submit" aria-label="Revoke ${t.description || 'token'}">
            Revoke
          </button>
        </form>`
      : t.state;
  return html`<table class="stack">
    <caption>
      Your personal access tokens for ${slug}
    </caption>
    <thead>
      <tr>
        <th scope="col">Description</th>
        <th scope="col">Created</th>
        <th scope="col">Expires</th>
        <th scope="col">Last used</th>
        <th scope="col"><span class="visually-hidden">Usage</span></th>
        <th scope="col"><span class="visually-hidden">Action</span></th>
      </tr>
    </thead>
    <tbody>
      ${tokens.map(
        (t) =>
          html`<tr>
            <th scope="row">${t.description || '(no description)'}</th>
            <td data-label="Created">${formatDate(t.createdAt)}</td>
            <td data-label="Expires">${formatDate(t.expiresAt)}</td>
            <td data-label="Last used">${formatDate(t.lastUsedAt)}</td>
            <td class="inline">
              <a
                href="/dashboard/projects/${slug}/tokens/${t.jti}"
                aria-label="Usage of ${t.description || 'token'}"
                >Usage</a
              >
            </td>
            <td class="inline">${revoke(t)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function tokensPage(
  chrome: Chrome,
  input: {
    slug: string;
    tokens: readonly OwnTokenRow[];
    refusal: string | undefined;
    created: NewToken | undefined;
  },
): string {
  const generate = input.refusal
    ? html`<p class="notice" role="note"><strong>Generate is not available:</strong> ${input.refusal}</p>`
    : html`<p><a class="button" href="/dashboard/projects/${input.slug}/tokens/new">Generate</a></p>`;
  return page(
    'Personal access tokens',
    { ...chrome, trail: tokensTrail(input.slug), ...(input.created ? { scripts: [COPY_SCRIPT] } : {}) },
    html`${input.created ? newTokenPanel(input.created) : ''} ${generate}
      <p class="hint">A lost token cannot be shown again: revoke it and generate a new one.</p>
      ${tokensTable(chrome, input.slug, input.tokens)}`,
  );
}

/** Lifetimes offered besides the configured default and maximum (none beyond the maximum). */
const LIFETIMES = ['1h', '12h', '1d', '7d', '30d', '90d', '180d', '365d'];

/** What the form may offer: the usual lifetimes up to the maximum, the default and the maximum, shortest first. */
export function lifetimeChoices(policy: TokenPolicy): string[] {
  const max = parseDuration(policy.maxTtl) ?? 0;
  const ms = (ttl: string) => parseDuration(ttl) ?? Infinity;
  const choices = [...LIFETIMES, policy.defaultTtl, policy.maxTtl].filter((ttl) => ms(ttl) <= max);
  return [...new Set(choices)].sort((a, b) => ms(a) - ms(b));
}

/** What was typed and why it was refused, shown next to the field at fault. */
export interface NewTokenDraft {
  readonly description?: string;
  readonly ttl?: string;
  readonly problem?: { readonly field: 'description' | 'ttl'; readonly message: string };
}

function problemAt(draft: NewTokenDraft, field: 'description' | 'ttl') {
  return fieldProblem(
    field,
    draft.problem?.field === field ? draft.problem.message : undefined,
    `${field}-hint`,
  );
}

function lifetimeField(policy: TokenPolicy, draft: NewTokenDraft) {
  const choices = lifetimeChoices(policy);
  const chosen = draft.ttl !== undefined && choices.includes(draft.ttl) ? draft.ttl : policy.defaultTtl;
  const problem = problemAt(draft, 'ttl');
  const label = (ttl: string) =>
    ttl === policy.defaultTtl ? `${ttl} (default)` : ttl === policy.maxTtl ? `${ttl} (maximum)` : ttl;
  return html`<p>
    <label for="ttl">Lifetime</label><br />${problem.text}<select id="ttl" name="ttl" ${problem.attributes}>
      ${choices.map(
        (ttl) => html`<option value="${ttl}" ${ttl === chosen ? html`selected` : ''}>${label(ttl)}</option>`,
      )}
    </select>
    <span id="ttl-hint" class="hint"
      >The token stops working after this long (at most ${policy.maxTtl}).</span
    >
  </p>`;
}

export function newTokenPage(
  chrome: Chrome,
  input: { slug: string; policy: TokenPolicy; draft?: NewTokenDraft },
): string {
  const draft = input.draft ?? {};
  const description = problemAt(draft, 'description');
  return page(
    'Generate a personal access token',
    { ...chrome, trail: tokensTrail(input.slug, true) },
    html`<form method="post" action="/dashboard/projects/${input.slug}/tokens">
      ${csrfField(chrome.csrf)}
      <p>
        <label for="description">Token description</label><br />${description.text}<input
          id="description"
          name="description"
          required
          maxlength="200"
          value="${draft.description ?? ''}"
          ${description.attributes}
        />
        <span id="description-hint" class="hint">What the token is for, e.g. "laptop" or "CI pipeline".</span>
      </p>
      ${lifetimeField(input.policy, draft)}
      <p>The token works for project ${input.slug} only.</p>
      <p><button type="submit">Generate token</button></p>
    </form>`,
  );
}

/** Asked before a token is revoked: the page's form posts the revocation again, confirmed. */
export function revokeTokenPage(chrome: Chrome, input: { slug: string; jti: string; description: string }) {
  const name = input.description || '(no description)';
  const tokens = `/dashboard/projects/${input.slug}/tokens`;
  return confirmPage(chrome, {
    title: `Revoke token ${name}?`,
    question: html`The token <strong>${name}</strong> stops working at once, on every gateway instance within
      a second. A revoked token cannot be used again; generate a new one if you need one.`,
    action: `${tokens}/${input.jti}/revoke`,
    confirmLabel: 'Revoke token',
    cancelHref: tokens,
  });
}
