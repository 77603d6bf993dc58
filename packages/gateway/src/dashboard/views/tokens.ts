/** The spec's token flow: list, "Generate", "Token description", the token shown once. */
import type { OwnTokenRow } from '../../access/directory.ts';
import { html } from '../html.ts';
import { type Chrome, csrfField, formatDate, page } from './layout.ts';

export const COPY_SCRIPT = '/dashboard/assets/copy.js';

export interface NewToken {
  readonly token: string;
  readonly expiresAt: string;
  readonly description: string;
}

function trail(slug: string) {
  return [
    { href: '/dashboard', label: 'Projects' },
    { href: `/dashboard/projects/${slug}`, label: slug },
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
  return html`<table>
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
            <td>${formatDate(t.createdAt)}</td>
            <td>${formatDate(t.expiresAt)}</td>
            <td>${formatDate(t.lastUsedAt)}</td>
            <td>
              <a
                href="/dashboard/projects/${slug}/tokens/${t.jti}"
                aria-label="Usage of ${t.description || 'token'}"
                >Usage</a
              >
            </td>
            <td>${revoke(t)}</td>
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
    { ...chrome, trail: trail(input.slug), ...(input.created ? { scripts: [COPY_SCRIPT] } : {}) },
    html`${input.created ? newTokenPanel(input.created) : ''} ${generate}
      <p class="hint">A lost token cannot be shown again: revoke it and generate a new one.</p>
      ${tokensTable(chrome, input.slug, input.tokens)}`,
  );
}

export function newTokenPage(
  chrome: Chrome,
  input: { slug: string; defaultTtl: string; problem?: string; description?: string },
): string {
  return page(
    'Generate a personal access token',
    {
      ...chrome,
      trail: [
        ...trail(input.slug),
        { href: `/dashboard/projects/${input.slug}/tokens`, label: 'Personal access tokens' },
      ],
    },
    html`${input.problem ? html`<p role="alert" class="error">${input.problem}</p>` : ''}
      <form method="post" action="/dashboard/projects/${input.slug}/tokens">
        ${csrfField(chrome.csrf)}
        <p>
          <label for="description">Token description</label><br />
          <input
            id="description"
            name="description"
            required
            maxlength="200"
            value="${input.description ?? ''}"
            aria-describedby="description-hint"
          />
          <span id="description-hint" class="hint"
            >What the token is for, e.g. "laptop" or "CI pipeline".</span
          >
        </p>
        <p>The token is valid for ${input.defaultTtl} and works for project ${input.slug} only.</p>
        <p><button type="submit">Generate token</button></p>
      </form>`,
  );
}
