/* global document, navigator */
// The dashboard's only script: the copy button next to a newly generated token. Without it the
// token can still be selected and copied by hand.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const status = button.parentElement.querySelector('[data-copy-status]');
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select();
      document.execCommand('copy');
    }
    if (status) status.textContent = 'Copied to the clipboard.';
  });
}
