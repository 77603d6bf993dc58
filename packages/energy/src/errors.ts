import { type AppError, defineErrors, type FrameworkErrorKind } from '@app/http-kit';
import type { FieldErrors } from './input/fields.ts';

/**
 * Every error the energy asset service answers with. Messages are what the reference Rails
 * service said where the spec quotes it (401, 404), plain English otherwise.
 */
export const energyErrors = defineErrors({
  unauthorized: {
    status: 401,
    type: 'unauthorized',
    message: () => 'Unauthorized - ensure token is being passed with each service call.',
  },
  invalid_credentials: {
    status: 401,
    type: 'unauthorized',
    message: () => 'Invalid email or password.',
  },
  not_found: { status: 404, type: 'not_found', message: () => 'Unsupported operation' },
  not_acceptable: {
    status: 406,
    type: 'not_acceptable',
    message: (p: { format: string }) => `Format '${p.format}' is not supported; use json or xml.`,
  },
  bad_request: { status: 400, type: 'bad_request', message: (p: { reason: string }) => p.reason },
  body_too_large: {
    status: 413,
    type: 'payload_too_large',
    message: () => 'Request body is larger than the limit.',
  },
  unsupported_media_type: {
    status: 415,
    type: 'unsupported_media_type',
    message: (p: { contentType: string }) =>
      `Content type '${p.contentType}' is not supported; send JSON, XML or form-encoded parameters.`,
  },
  validation_failed: {
    status: 422,
    type: 'unprocessable_entity',
    message: () => 'Validation failed.',
  },
  service_unavailable: {
    status: 503,
    type: 'service_unavailable',
    message: (p: { reason: string }) => p.reason,
  },
  internal: { status: 500, type: 'internal_server_error', message: () => 'Internal server error.' },
});

export type EnergyErrorCode = keyof typeof energyErrors.catalogue;

/** A 422 carrying per-field messages, rendered as Rails' `errors` shapes. */
export function validationFailed(errors: FieldErrors): AppError {
  return energyErrors.create('validation_failed', {}, { details: { errors } });
}

export function energyErrorFromFramework(
  kind: FrameworkErrorKind,
  message: string,
  contentType: string | undefined,
): AppError {
  switch (kind) {
    case 'not_found':
      return energyErrors.create('not_found', {});
    case 'body_too_large':
      return energyErrors.create('body_too_large', {});
    case 'unsupported_media_type':
      return energyErrors.create('unsupported_media_type', {
        contentType: (contentType ?? '').slice(0, 100),
      });
    case 'validation':
    case 'malformed_body':
    case 'bad_request':
      return energyErrors.create('bad_request', { reason: message });
    case 'overloaded':
      return energyErrors.create('service_unavailable', { reason: message });
    case 'internal':
      return energyErrors.create('internal', {});
  }
}
