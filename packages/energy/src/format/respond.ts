import type { AppError } from '@app/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type FieldErrors, fullMessages } from '../input/fields.ts';
import { type Format, formatOf } from './negotiate.ts';
import {
  type ApiRecord,
  type Representation,
  toJson,
  toJsonList,
  toXml,
  toXmlList,
  xmlError,
  xmlErrorList,
} from './representation.ts';

const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

export function sendRecord(
  request: FastifyRequest,
  reply: FastifyReply,
  representation: Representation,
  record: ApiRecord,
): FastifyReply {
  const format = formatOf(request.raw);
  const body = format === 'xml' ? toXml(representation, record) : toJson(representation, record);
  return reply.type(CONTENT_TYPES[format]).send(body);
}

export function sendList(
  request: FastifyRequest,
  reply: FastifyReply,
  representation: Representation,
  records: readonly ApiRecord[],
): FastifyReply {
  const format = formatOf(request.raw);
  const body = format === 'xml' ? toXmlList(representation, records) : toJsonList(representation, records);
  return reply.type(CONTENT_TYPES[format]).send(body);
}

/** Update and delete: 204 and no body, whatever the format. */
export function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

function fieldErrorsOf(error: AppError): FieldErrors | undefined {
  const errors = error.details?.errors;
  return errors !== null && typeof errors === 'object' ? (errors as FieldErrors) : undefined;
}

/**
 * Every error in the negotiated format (JSON when negotiation itself failed). A 422 carries
 * Rails' validation shapes; anything else `{"error": {"code", "message"}}` or its XML mirror.
 */
export function renderError(error: AppError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const format = formatOf(request.raw);
  const fieldErrors = fieldErrorsOf(error);
  let body: string;
  if (fieldErrors && format === 'xml') body = xmlErrorList(fullMessages(fieldErrors));
  else if (fieldErrors) body = JSON.stringify({ errors: fieldErrors });
  else if (format === 'xml') body = xmlError(error.code, error.message);
  else body = JSON.stringify({ error: { code: error.code, message: error.message } });
  return reply.type(CONTENT_TYPES[format]).send(body);
}
