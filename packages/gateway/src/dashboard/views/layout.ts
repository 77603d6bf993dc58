import { FAVICON_PATH, type Html, html, PAGE_STYLESHEET_PATH } from '@app/http-kit';

export interface Chrome {
  /** The signed-in user's email; absent on public pages. */
  readonly email?: string;
  /** Anti-forgery token for the sign-out form (and the page's forms). */
  readonly csrf?: string;
  /** Breadcrumb links before the page title. */
  readonly trail?: ReadonlyArray<{ href: string; label: string }>;
  /** Page-specific script files (the copy button); never inline. */
  readonly scripts?: readonly string[];
}

/** The breadcrumbs of a page below a project's page. */
export function projectTrail(slug: string): NonNullable<Chrome['trail']> {
  return [
    { href: '/dashboard', label: 'Projects' },
    { href: `/dashboard/projects/${slug}`, label: slug },
  ];
}

/**
 * A refused form field: the reason, shown just before the field (id `<field>-problem`), and the
 * attributes that tie the field to it (and to its hint, when it has one).
 */
export function fieldProblem(field: string, message: string | undefined, hint?: string) {
  if (message === undefined)
    return { text: '', attributes: hint ? html`aria-describedby="${hint}"` : html`` };
  const describedBy = hint ? `${field}-problem ${hint}` : `${field}-problem`;
  return {
    text: html`<span id="${field}-problem" role="alert" class="error">${message}</span><br />`,
    attributes: html`aria-invalid="true" aria-describedby="${describedBy}"`,
  };
}

export function csrfField(csrf: string | undefined): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf ?? ''}" />`;
}

export function page(title: string, chrome: Chrome, body: Html): string {
  const signOut = chrome.email
    ? html`<form method="post" action="/dashboard/logout" class="inline">
        ${csrfField(chrome.csrf)}<button type="submit" class="link">Sign out</button>
      </form>`
    : '';
  const trail = chrome.trail?.length
    ? html`<nav aria-label="Breadcrumb">
        <ol class="trail">
          ${chrome.trail.map((step) => html`<li><a href="${step.href}">${step.label}</a></li>`)}
          <li aria-current="page">${title}</li>
        </ol>
      </nav>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} - Model gateway</title>
        <link rel="stylesheet" href="${PAGE_STYLESHEET_PATH}" />
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        <link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml" />
        ${(chrome.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <header class="banner">
          <p>
            <a href="/dashboard"><strong>Model gateway</strong> dashboard</a>
          </p>
          ${chrome.email ? html`<p>Signed in as <strong>${chrome.email}</strong> ${signOut}</p>` : ''}
        </header>
        <main id="main">
          ${trail}
          <h1>${title}</h1>
          ${body}
        </main>
        <footer>
          <p><a href="/docs">API documentation</a> · <a href="/openapi.json">OpenAPI</a></p>
        </footer>
      </body>
    </html>`.text;
}

/** A stored time (ISO-8601, UTC) as every page shows times: `2026-11-28 06:30 UTC`. */
export function formatDate(iso: string | null): Html {
  if (!iso) return html`never`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z/g;

/**
 * Stored text that mentions times (an audit entry's "expires 2026-12-28T06:30:00.000Z"), with
 * each time shown as formatDate shows it: one format on the page, whatever the text was written with.
 */
export function withTimes(text: string): Html {
  const parts: Html[] = [];
  let last = 0;
  for (const match of text.matchAll(ISO_TIME)) {
    parts.push(html`${text.slice(last, match.index)}`, formatDate(match[0]));
    last = match.index + match[0].length;
  }
  parts.push(html`${text.slice(last)}`);
  return html`${parts}`;
}

export function errorBody(message: string): Html {
  return html`<p role="alert">${message}</p>
    <p><a href="/dashboard">Back to the dashboard</a></p>`;
}
