/**
 * What the docs-examples test reads out of the product docs: fenced code blocks (with the
 * opt-out marker before them, if any) and the model names they mention.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');

/** Put on the line before a fence: the block is shown but not executed, for the reason given. */
export const SKIP_MARKER = /^<!-- docs-examples: skip \((.+)\) -->$/;

export interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly text: string;
  /** The opt-out reason, when the block carries the marker. */
  readonly skip: string | undefined;
}

export function docFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) out.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

export function blocksOf(path: string): Block[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (end < 0) throw new Error(`${path}:${i + 1}: unclosed code fence`);
    blocks.push({
      file: relative(ROOT, path),
      line: i + 1,
      lang: open[1] ?? '',
      text: lines.slice(i + 1, end).join('\n'),
      skip: SKIP_MARKER.exec(lines[i - 1] ?? '')?.[1],
    });
    i = end;
  }
  return blocks;
}

/** A name as a client writes it: `base[:modifier]...[@provider]`. */
const MODEL_NAME = /^[a-z][a-z0-9.-]*[a-z0-9](?::[a-z]+)*(?:@[a-z_]+)?$/;

const OPTION_SUFFIX =
  /(?::(?:none|minimal|low|medium|high|xhigh|max|flex|nocompress))+(?:@[a-z_]+)?$|@(?:developer|cloud_[a-z])$/;

export interface Mention {
  readonly name: string;
  readonly where: string;
  /** The status the text says this name gets (`... is a 400`), else 200. */
  readonly status: number;
}

/**
 * Candidate model names: inline code spans and quoted strings, whose base (before `:` / `@`) the
 * caller recognises as a model (`isModel`). The sentence right after a name may state the
 * status it gets (`gpt-5.5:flex@cloud_c` is a 400).
 */
export function modelMentions(path: string, isModel: (base: string) => boolean): Mention[] {
  const text = readFileSync(path, 'utf8');
  const out: Mention[] = [];
  for (const match of text.matchAll(/`([^`\n]+)`|"([^"\n]+)"/g)) {
    const name = match[1] ?? match[2] ?? '';
    if (!MODEL_NAME.test(name)) continue;
    const base = name.split(/[:@]/)[0] ?? '';
    // An unknown base still counts when the name carries a modifier or a provider: it claims to be one.
    if (!isModel(base) && !OPTION_SUFFIX.test(name)) continue;
    const after = text.slice((match.index ?? 0) + match[0].length, (match.index ?? 0) + match[0].length + 40);
    const stated = /^[^.;]*?\b(?:is|gets|answers)\s+(?:a\s+)?(4\d\d)\b/.exec(after)?.[1];
    const line = text.slice(0, match.index).split('\n').length;
    out.push({ name, where: `${relative(ROOT, path)}:${line}`, status: stated ? Number(stated) : 200 });
  }
  return out;
}
