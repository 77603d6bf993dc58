/**
 * The question asked before a change that cannot be undone (revoking a token or a membership).
 * It is a page, not a script's dialog: the form posts the same change again with `confirm`, so
 * it works without JavaScript and with every assistive technology.
 */
import { type Html, html } from '@app/http-kit';
import { type Chrome, csrfField, page } from './layout.ts';

/** The field and value a confirmed post carries. */
export const CONFIRM = { name: 'confirm', value: 'yes' } as const;

export function confirmPage(
  chrome: Chrome,
  input: {
    title: string;
    question: Html;
    /** Where the change is posted, and the fields it needs besides the confirmation. */
    action: string;
    fields?: Readonly<Record<string, string>>;
    confirmLabel: string;
    cancelHref: string;
  },
): string {
  const fields = Object.entries(input.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  return page(
    input.title,
    chrome,
    html`<p>${input.question}</p>
      <form method="post" action="${input.action}" class="buttons">
        ${csrfField(chrome.csrf)}${fields}<input
          type="hidden"
          name="${CONFIRM.name}"
          value="${CONFIRM.value}"
        />
        <button type="submit">${input.confirmLabel}</button>
        <a class="button secondary" href="${input.cancelHref}">Cancel</a>
      </form>`,
  );
}
