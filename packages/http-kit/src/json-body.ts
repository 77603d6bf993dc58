import type { FastifyInstance } from 'fastify';
import { parse } from 'secure-json-parse';
import { reservedKeyMessage } from './safe-keys.ts';

const OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;
/**
 * Deepest nesting of objects and arrays accepted. Real requests stay far below it (a tool's
 * JSON schema nests a few dozen levels at most); thousands of levels only overflow the stack of
 * whatever serialises the body later, after money has been reserved.
 */
export const MAX_JSON_DEPTH = 128;

/** True when `value` nests objects and arrays deeper than `limit` (stops looking as soon as it does). */
function deeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) if (deeperThan(child, limit - 1)) return true;
  return false;
}

/** A 400 that the kit's error handler classifies as a bad request with this message. */
class BodyError extends Error {
  readonly statusCode = 400;
}

function failure(error: unknown, text: string): Error {
  const message = error instanceof Error ? error.message : '';
  // secure-json-parse's words for both `__proto__` and `constructor.prototype`.
  if (message.includes('forbidden prototype')) {
    return new BodyError(reservedKeyMessage(text.includes('__proto__') ? '__proto__' : 'constructor'));
  }
  const syntax = new SyntaxError(message === '' ? 'invalid JSON' : message);
  return Object.assign(syntax, { statusCode: 400 });
}

/**
 * JSON bodies through secure-json-parse, as Fastify's own parser does, but with messages a
 * client can act on: where the JSON is broken, or which reserved name was refused (Fastify's
 * says only "Body is not valid JSON").
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text === '') {
      const empty = new SyntaxError("Body cannot be empty when content-type is set to 'application/json'");
      done(Object.assign(empty, { statusCode: 400 }), undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = parse(text, undefined, OPTIONS);
    } catch (error) {
      done(failure(error, text), undefined);
      return;
    }
    if (deeperThan(parsed, MAX_JSON_DEPTH))
      done(
        new BodyError(`The JSON body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`),
        undefined,
      );
    else done(null, parsed);
  });
}
