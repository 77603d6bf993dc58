import { dictionary, reservedKeyMessage, reservedSegment } from '@app/http-kit';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** A body that is not acceptable XML: the route answers 400 with this message. */
export class XmlInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlInputError';
  }
}

const ATTRIBUTE = '@_';
const TEXT = '#text';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE,
  textNodeName: TEXT,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Entities are decoded below in one pass: the parser's own pass would turn `&amp;#65;` into "A".
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

// A DOCTYPE is where external entities (XXE) and entity expansion bombs are declared; Rails
// clients never send one, so any document that carries one is refused outright.
const DECLARATIONS = /<!(DOCTYPE|ENTITY)/i;
const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g;
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function decode(text: string): string {
  return text.replace(ENTITY, (_match, entity: string) => {
    if (!entity.startsWith('#')) return NAMED[entity] ?? '';
    const code = entity[1] === 'x' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    if (code > 0x10ffff) throw new XmlInputError(`Invalid character reference &${entity};`);
    return String.fromCodePoint(code);
  });
}

type Node = string | Record<string, unknown> | unknown[];

function children(node: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(node).filter(([key]) => key !== TEXT && !key.startsWith(ATTRIBUTE));
}

/** Rails' typecasts, made strict: a value that does not cast stays text, for a 422 later. */
function typed(type: string, text: string): unknown {
  switch (type) {
    case 'integer':
      return INTEGER.test(text) ? Number(text) : text;
    case 'float':
    case 'double':
    case 'decimal':
      return DECIMAL.test(text) ? Number(text) : text;
    case 'boolean':
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      return text;
    case 'symbol':
    case 'yaml':
      // Rails refuses these too (ActiveSupport::XMLConverter::DisallowedType).
      throw new XmlInputError(`Disallowed type attribute: "${type}"`);
    default:
      return text;
  }
}

function convert(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convert);
  if (typeof node === 'string') return node === '' ? null : decode(node);
  if (node === null || typeof node !== 'object') return null;
  const element = node as Record<string, unknown>;
  if (element[`${ATTRIBUTE}nil`] === 'true') return null;
  const type = element[`${ATTRIBUTE}type`];
  if (type === 'array')
    return children(element).flatMap(([, value]) => (Array.isArray(value) ? value : [value]).map(convert));
  const nested = children(element);
  if (nested.length > 0 && type === undefined) return hashOf(nested);
  const text = typeof element[TEXT] === 'string' ? decode(element[TEXT]) : '';
  if (typeof type !== 'string') return text === '' ? null : text;
  if (text === '') return type === 'string' ? '' : null;
  return typed(type, text);
}

function hashOf(entries: Array<[string, unknown]>): Record<string, unknown> {
  const out = dictionary();
  // Rails' Hash.from_xml undasherizes names: <weekday-open-time> is weekday_open_time.
  for (const [key, value] of entries) out[safeName(key)] = convert(value);
  return out;
}

function safeName(element: string): string {
  const name = element.replaceAll('-', '_');
  const reserved = reservedSegment(name);
  if (reserved !== undefined) throw new XmlInputError(reservedKeyMessage(reserved));
  return name;
}

/**
 * Reads an XML request body by Rails' `Hash.from_xml` rules (type attributes cast, `nil="true"`
 * is null, dashes in names become underscores) and returns the root element's content: the
 * root's own name (normally `operation`) is not needed to find the parameters.
 */
export function parseXmlParams(text: string): Record<string, unknown> {
  if (text.trim() === '') return dictionary();
  if (DECLARATIONS.test(text)) {
    throw new XmlInputError('XML with a DOCTYPE or entity declaration is not accepted.');
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlInputError(`Malformed XML: ${valid.err.msg}`);
  let document: Record<string, unknown>;
  try {
    document = parser.parse(text) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : 'unreadable';
    // fast-xml-parser refuses `__proto__` and `constructor` elements itself, in its own words.
    const reserved = /Invalid name: "([^"]+)" is a reserved/.exec(message)?.[1];
    throw new XmlInputError(reserved ? reservedKeyMessage(reserved) : `Malformed XML: ${message}`);
  }
  const roots = children(document);
  const [root] = roots;
  if (roots.length !== 1 || !root)
    throw new XmlInputError('Malformed XML: expected exactly one root element.');
  const content = convert(root[1] as Node);
  if (content !== null && typeof content === 'object' && !Array.isArray(content)) {
    return content as Record<string, unknown>;
  }
  const wrapped = dictionary();
  wrapped[safeName(root[0])] = content;
  return wrapped;
}
