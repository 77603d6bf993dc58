/**
 * Server-side HTML with escaping by default: every value interpolated into `html\`...\`` is
 * escaped by escape-html unless it is itself the result of `html` (already safe markup). Shared
 * by the services' pages (the landing pages, the gateway's dashboard).
 */
import escapeHtml from 'escape-html';

export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map((item: Value) => render(item)).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: readonly Value[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
}

/** Markup built by a trusted library (oidc-provider's own forms in the gateway), inserted as it is. */
export function trustedMarkup(markup: string): Html {
  return new Html(markup);
}
