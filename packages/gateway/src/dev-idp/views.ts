/** Pages of the development identity provider: sign-in, consent, sign-out, errors. */
import { type Html, html, trustedMarkup } from '../dashboard/html.ts';

export const STYLESHEET = '/dashboard/assets/dashboard.css';

function page(title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} - development identity provider</title>
        <link rel="stylesheet" href="${STYLESHEET}" />
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
  uid: string;
  clientName: string;
  email?: string;
  error?: string;
}): string {
  return page(
    'Sign in',
    html`<p>Sign in to continue to ${input.clientName}.</p>
      ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
      <form method="post" action="/dev-idp/interaction/${input.uid}/login">
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

export function consentPage(input: {
  uid: string;
  clientName: string;
  email: string;
  scopes: readonly string[];
}): string {
  return page(
    'Authorize access to your profile',
    html`<p>You are signed in as <strong>${input.email}</strong>.</p>
      <p>
        The application <strong>${input.clientName}</strong> asks you to authorize the identity provider to
        access the profile:
      </p>
      <ul aria-label="Requested access">
        ${input.scopes.map((scope) => html`<li>${scope}</li>`)}
      </ul>
      <form method="post" action="/dev-idp/interaction/${input.uid}/confirm">
        <button type="submit">Authorize</button>
      </form>
      <form method="post" action="/dev-idp/interaction/${input.uid}/abort">
        <button type="submit" class="secondary">Cancel</button>
      </form>`,
  );
}

export function errorPage(error: string, description: string): string {
  return page(
    'Sign-in problem',
    html`<p role="alert">${error}${description ? html`: ${description}` : ''}</p>`,
  );
}

/** `form` is oidc-provider's own logout form (with its anti-forgery field), markup it built. */
export function logoutPage(form: string): string {
  return page(
    'Sign out',
    html`${trustedMarkup(form)}
      <p>Sign out of the development identity provider too?</p>
      <p>
        <button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
        <button type="submit" form="op.logoutForm" class="secondary">No, stay signed in</button>
      </p>`,
  );
}

export function signedOutPage(): string {
  return page('Signed out', html`<p>You are signed out. <a href="/dashboard">Back to the dashboard</a></p>`);
}
