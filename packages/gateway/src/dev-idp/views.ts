/**
 * Pages of the development identity provider: sign-in, consent, sign-out, errors. Their links
 * and form actions are absolute URLs under the gateway's public URL (behind a proxy, the path
 * the gateway sees is not the one the browser uses).
 */
import { type Html, html, PAGE_STYLESHEET_PATH, trustedMarkup } from '@app/http-kit';

/** The pages' policy: the gateway's stylesheet and icon, forms to the provider only, no script. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'";

/** Where the pages point: the gateway's public base URL and the provider's issuer under it. */
export interface PageUrls {
  readonly publicBase: string;
  readonly issuer: string;
}

function interaction(urls: PageUrls, uid: string, action: string): string {
  return `${urls.issuer}/interaction/${uid}/${action}`;
}

function page(urls: PageUrls, title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} - development identity provider</title>
        <link rel="stylesheet" href="${urls.publicBase}${PAGE_STYLESHEET_PATH}" />
        <link rel="stylesheet" href="${urls.publicBase}/dashboard/assets/dashboard.css" />
        <link rel="icon" href="${urls.publicBase}/favicon.ico" type="image/svg+xml" />
      </head>
      <body>
        <header class="banner dev">
          <p><strong>Development identity provider</strong> - for local use only, never in production.</p>
        </header>
        <main id="main">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`.text;
}

export function loginPage(input: {
  urls: PageUrls;
  uid: string;
  clientName: string;
  email?: string;
  error?: string;
}): string {
  return page(
    input.urls,
    'Sign in',
    html`<p>Sign in to continue to ${input.clientName}.</p>
      ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
      <form method="post" action="${interaction(input.urls, input.uid, 'login')}">
        <p>
          <label for="email">Email</label><br /><input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value="${input.email ?? ''}"
          />
        </p>
        <p>
          <label for="password">Password</label><br /><input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
          />
        </p>
        <p><button type="submit">Sign in</button></p>
      </form>
      <p class="hint">The development users and their passwords are printed when the gateway starts.</p>`,
  );
}

/** What each scope the dashboard asks for gives it, in the words of the consent screen. */
const SCOPE_TEXT: Readonly<Record<string, string>> = {
  openid: 'your user id at this provider',
  email: 'your email address',
  profile: 'your name',
};

export function consentPage(input: {
  urls: PageUrls;
  uid: string;
  clientName: string;
  email: string;
  scopes: readonly string[];
}): string {
  return page(
    input.urls,
    'Authorize access to your profile',
    html`<p>You are signed in as <strong>${input.email}</strong>.</p>
      <p id="consent-question"><strong>${input.clientName}</strong> wants to access your profile:</p>
      <ul aria-labelledby="consent-question">
        ${input.scopes.map((scope) => html`<li>${SCOPE_TEXT[scope] ?? scope} (${scope})</li>`)}
      </ul>
      <div class="buttons">
        <form method="post" action="${interaction(input.urls, input.uid, 'confirm')}">
          <button type="submit">Authorize</button>
        </form>
        <form method="post" action="${interaction(input.urls, input.uid, 'abort')}">
          <button type="submit" class="secondary">Cancel</button>
        </form>
      </div>`,
  );
}

export function errorPage(urls: PageUrls, error: string, description: string): string {
  return page(
    urls,
    'Sign-in problem',
    html`<p role="alert">${error}${description ? html`: ${description}` : ''}</p>`,
  );
}

/** `form` is oidc-provider's own logout form (with its anti-forgery field), markup it built. */
export function logoutPage(urls: PageUrls, form: string): string {
  return page(
    urls,
    'Sign out',
    html`${trustedMarkup(form)}
      <p>Sign out of the development identity provider too?</p>
      <p class="buttons">
        <button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
        <button type="submit" form="op.logoutForm" class="secondary">No, stay signed in</button>
      </p>`,
  );
}

export function signedOutPage(urls: PageUrls): string {
  return page(
    urls,
    'Signed out',
    html`<p>You are signed out. <a href="${urls.publicBase}/dashboard">Back to the dashboard</a></p>`,
  );
}
