import type { FastifyInstance } from 'fastify';
import { parse } from 'secure-json-parse';
import { reservedKeyMessage } from './safe-keys.ts';

const OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

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
    try {
      done(null, parse(text, undefined, OPTIONS));
    } catch (error) {
      done(failure(error, text), undefined);
    }
  });
}
