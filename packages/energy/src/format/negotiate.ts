import type { IncomingMessage } from 'node:http';

export type Format = 'json' | 'xml';

export type Negotiated = { readonly format: Format } | { readonly unsupported: string };

const FORMATS: ReadonlySet<string> = new Set(['json', 'xml']);

/** Media types Rails registers for its json and xml formats; wildcards mean "no preference". */
const MEDIA_TYPES: ReadonlyMap<string, Format> = new Map([
  ['application/json', 'json'],
  ['text/json', 'json'],
  ['text/x-json', 'json'],
  ['application/jsonrequest', 'json'],
  ['application/xml', 'xml'],
  ['text/xml', 'xml'],
  ['application/x-xml', 'xml'],
  ['*/*', 'json'],
  ['application/*', 'json'],
]);

const EXTENSION = /\.([A-Za-z][A-Za-z0-9]*)$/;

/**
 * Splits a `.json` / `.xml` (or any other) extension off the last path segment of an API URL,
 * so one route serves `/operations/1`, `/operations/1.json` and `/operations/1.xml`. Only
 * paths under `/api/` are touched: `/openapi.json` stays the kit's own route.
 */
export function splitExtension(url: string): { url: string; extension: string | undefined } {
  if (!url.startsWith('/api/')) return { url, extension: undefined };
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const match = EXTENSION.exec(path);
  if (!match?.[1]) return { url, extension: undefined };
  const stripped = path.slice(0, -match[0].length) + (queryAt === -1 ? '' : url.slice(queryAt));
  return { url: stripped, extension: match[1] };
}

function byName(name: string): Negotiated {
  const lower = name.toLowerCase();
  return FORMATS.has(lower) ? { format: lower as Format } : { unsupported: name };
}

/** The Accept header's best supported type by quality (ties: first listed); JSON if absent. */
export function fromAccept(accept: string | undefined): Negotiated {
  if (accept === undefined || accept.trim() === '') return { format: 'json' };
  let best: { format: Format; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((piece) => piece.trim());
    const format = MEDIA_TYPES.get(type.toLowerCase());
    if (!format) continue;
    const qParam = params.find((param) => param.toLowerCase().startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    if (!best || q > best.q) best = { format, q };
  }
  return best ? { format: best.format } : { unsupported: accept.trim().slice(0, 100) };
}

/** Decisions: path extension > `format` parameter > Accept header > JSON. */
export function negotiate(input: {
  extension: string | undefined;
  formatParam: unknown;
  accept: string | undefined;
}): Negotiated {
  if (input.extension !== undefined) return byName(input.extension);
  const param = Array.isArray(input.formatParam) ? input.formatParam[0] : input.formatParam;
  if (typeof param === 'string' && param !== '') return byName(param);
  return fromAccept(input.accept);
}

const extensions = new WeakMap<IncomingMessage, string>();
const negotiated = new WeakMap<IncomingMessage, Format>();

/** Remembers the extension removed by the URL rewrite, for the negotiation that runs later. */
export function rememberExtension(raw: IncomingMessage, extension: string): void {
  extensions.set(raw, extension);
}

export function extensionOf(raw: IncomingMessage): string | undefined {
  return extensions.get(raw);
}

export function rememberFormat(raw: IncomingMessage, format: Format): void {
  negotiated.set(raw, format);
}

/** The request's negotiated format; JSON when negotiation failed or never ran (non-API paths). */
export function formatOf(raw: IncomingMessage): Format {
  return negotiated.get(raw) ?? 'json';
}
