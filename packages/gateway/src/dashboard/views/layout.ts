import { type Html, html } from '../html.ts';

export interface Chrome {
  /** The signed-in user's email; absent on public pages. */
  readonly email?: string;
  /** Anti-forgery token for the sign-out form (and the page's forms). */
  readonly csrf?: string;
  /** Breadcrumb links before the page title. */
  readonly trail?: ReadonlyArray<{ href: string; label: string }>;
  /** The gateway's landing page: the banner links home, not to the dashboard. */
  readonly landing?: boolean;
  /** Page-specific script files (the copy button); never inline. */
  readonly scripts?: readonly string[];
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
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        ${(chrome.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <header class="banner">
          ${
            chrome.landing
              ? html`<p><strong>Model gateway</strong></p>`
              : html`<p>
                  <a href="/dashboard"><strong>Model gateway</strong> dashboard</a>
                </p>`
          }
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

export function formatDate(iso: string | null): Html {
  if (!iso) return html`never`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

export function errorBody(message: string): Html {
  return html`<p role="alert">${message}</p>
    <p><a href="/dashboard">Back to the dashboard</a></p>`;
}
