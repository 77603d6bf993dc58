import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minifyJson } from './json.ts';
import { compactText, isWhitespaceSensitive } from './text.ts';

test('JSON is minified token for token: big integers, exponents, escapes and duplicate keys survive', () => {
  const text =
    '{\n  "id": 12345678901234567890,\n  "x": 1.0e3,\n  "s": "a  \\"b\\"  \\u00e9",\n  "k": 1, "k": 2\n}\n';
  assert.equal(
    minifyJson(text),
    '{"id":12345678901234567890,"x":1.0e3,"s":"a  \\"b\\"  \\u00e9","k":1,"k":2}',
  );
  assert.equal(minifyJson('[1, 2, {"a": [ ]}]'), '[1,2,{"a":[]}]');
  assert.equal(minifyJson('{"a": 1} trailing'), undefined);
  assert.equal(minifyJson('"just a string"'), undefined);
  assert.equal(compactText('{ "a" : 1 }'), '{"a":1}');
});

test('whitespace between two literal characters is not JSON: such text is left as sent', () => {
  // Stripped first, `[1 2]` would read `[12]` and parse: validation must see the text as sent.
  for (const text of ['[1 2]', '{"a": tr ue}', '[1 .5]', '[- 1]', '{"n": 1\n e5}']) {
    assert.equal(minifyJson(text), undefined, text);
    const pasted = `Data:\n${text.replace(' ', '\n  ')}\nEnd.`;
    assert.equal(compactText(pasted), pasted, pasted);
  }
  // Next to punctuation the same whitespace goes, as in any document.
  assert.equal(minifyJson('[1 , 2 ,\n-3 ]'), '[1,2,-3]');
  assert.equal(compactText('Data:\n[true ,\n  null]\nEnd.'), 'Data:\n[true,null]\nEnd.');
});

test('prose loses trailing whitespace and runs of blank lines; paragraphs stay apart', () => {
  assert.equal(
    compactText('First line.   \nSecond.\t\n\n\n\n\nThird.\n\n\n'),
    'First line.\nSecond.\n\nThird.',
  );
});

test('fenced code blocks are byte-identical, with the blank line around them kept once', () => {
  const code = '```python\ndef f():   \n\n\n\n    return 1  \n```';
  const text = `Look:   \n\n\n${code}\n\n\n\nDone.  `;
  assert.equal(compactText(text), `Look:\n\n${code}\n\nDone.`);
  const tilde = '~~~\n  a  \n\n\n  b\n~~~';
  assert.ok(compactText(`x  \n${tilde}\ny  `).includes(tilde));
  // An unclosed fence runs to the end of the text.
  assert.equal(compactText('Intro  \n```\ncode  \n\n\n'), 'Intro\n```\ncode  \n\n\n');
});

test('quoted text the user may need verbatim is left alone', () => {
  const quoted = 'He wrote: "line one   \n\n\n   line two"  \nend  ';
  // Lines a quote spans are kept whole, including the one it closes on.
  assert.equal(compactText(quoted), 'He wrote: "line one   \n\n\n   line two"  \nend');
  assert.equal(compactText('> quoted   \n> more   \nplain   '), '> quoted   \n> more   \nplain');
  assert.equal(compactText('`span  \n\n\n  span`  \nnext  '), '`span  \n\n\n  span`  \nnext');
});

test('diffs, Makefiles, YAML and Python are never altered', () => {
  const samples = [
    'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n \n-old  \n+new\n\n\n',
    'all: build\n\tcc -o app main.c   \n\n\n',
    'key: |\n  literal   \n\n\n  text\n',
    'server:\n  port: 80   \n\n\n',
    'def main():   \n    print(1)\n\n\n\nmain()\n',
  ];
  for (const sample of samples) {
    assert.ok(isWhitespaceSensitive(sample), sample);
    assert.equal(compactText(sample), sample);
  }
});

test('a text with nothing to remove is returned as the same string', () => {
  const text = 'Nothing to do here.\n\nReally.';
  assert.equal(compactText(text), text);
});

test('JSON pasted after an instruction is minified; JSON in a code fence is not', () => {
  const records = '{\n  "id": 1,\n  "note": "a  b"\n}';
  assert.equal(
    compactText(`Answer from these:\n\n${records}\n\nThanks.`),
    'Answer from these:\n\n{"id":1,"note":"a  b"}\n\nThanks.',
  );
  const fenced = `Example:\n\n\`\`\`json\n${records}\n\`\`\`\n\n\nEnd.`;
  assert.equal(compactText(fenced), `Example:\n\n\`\`\`json\n${records}\n\`\`\`\n\nEnd.`);
  assert.equal(compactText('{ not json\n  at all }'), '{ not json\n  at all }');
});

test('line ends: blank lines at the start go, and any trailing white space (a \\r, a no-break space)', () => {
  assert.equal(
    compactText('\n\n\nHello.  \r\nWorld.\u00a0\r\n\r\n\r\n\r\nBye.\r\n'),
    'Hello.\nWorld.\n\nBye.',
  );
  // Verbatim lines keep theirs.
  assert.equal(compactText('> quoted  \r\nplain  \r\n'), '> quoted  \r\nplain');
});

test('a JSON block is minified wherever it starts a line, the first one included', () => {
  assert.equal(compactText('{\n  "a": 1\n}\nThanks.  '), '{"a":1}\nThanks.');
  // A backtick inside a JSON string opens a span as in prose: what follows stays as sent.
  assert.equal(
    compactText('Data:  \n{\n  "s": "a`b"\n}\nrest  \n\n\nend  '),
    'Data:\n{"s":"a`b"}\nrest  \n\n\nend  ',
  );
  // The lines of a JSON block count for whitespace sensitivity like any other line.
  const tabbed = 'Rows:  \n{\n\t"a": 1\n}\n';
  assert.equal(compactText(tabbed), tabbed);
});

test('the searches for JSON blocks read at most twice the text: past that, JSON stays as sent', () => {
  // Each unclosed bracket's search reads to the end of the text; without a budget, a text of
  // such lines takes time growing with its square (bench/compression/adversarial.ts).
  const block = '{\n  "a": 1\n}';
  const text = (unclosed: number) => `Intro:\n${'{ x\n'.repeat(unclosed)}${block}\nEnd.`;
  assert.equal(compactText(text(1)), `Intro:\n{ x\n{"a":1}\nEnd.`);
  assert.equal(compactText(text(50)), text(50));
  // A block with an escaped quote in a string ends at its own closing bracket.
  assert.equal(compactText('Records:\n{"a": "\\"}"\n}\nEnd.'), 'Records:\n{"a":"\\"}"}\nEnd.');
});
