import assert from 'node:assert/strict';
import { test } from 'node:test';
import { html, trustedMarkup } from './html.ts';

// Literal markup below: Prettier would reformat the html-tagged templates the assertions spell out.

test('interpolated values are escaped, markup built by html is not escaped twice', () => {
  const name = `<script>alert("x")</script> & 'co'`;
  // prettier-ignore
  const list = html`<ul>${html`<li>${name}</li>`}</ul>`;
  assert.equal(
    list.text,
    '<ul><li>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</li></ul>',
  );
  // prettier-ignore
  const link = html`<a href="${'/x?a=1&b="2"'}">`;
  assert.equal(link.text, '<a href="/x?a=1&amp;b=&quot;2&quot;">');
});

test('lists are joined; null, undefined and false leave nothing; numbers and true are written', () => {
  // prettier-ignore
  const mixed = html`${['<a>', html`<b>`]}|${null}${undefined}${false}|${0}${true}`;
  assert.equal(mixed.text, '&lt;a&gt;<b>||0true');
  assert.equal(String(trustedMarkup('<form></form>')), '<form></form>');
});
