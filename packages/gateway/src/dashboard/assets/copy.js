/* global document, navigator */
// The dashboard's only script: the copy button next to a newly generated token. Without it the
// token can still be selected and copied by hand. The button says what happened, and the status
// next to it announces it to screen readers (role="status").
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const status = button.parentElement.querySelector('[data-copy-status]');
  const label = button.textContent;
  button.hidden = false;
  button.addEventListener('click', async () => {
    let copied = true;
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select();
      copied = document.execCommand('copy');
    }
    button.textContent = copied ? 'Copied' : label;
    if (status)
      status.textContent = copied
        ? 'Copied to the clipboard.'
        : 'Could not copy: the token is selected, copy it with the keyboard.';
  });
}
