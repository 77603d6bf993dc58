/** Why an administrative action was refused; the CLI prints `message`, a dashboard can map `code`. */
export type AdminErrorCode =
  | 'invalid_email'
  | 'invalid_slug'
  | 'invalid_cidr'
  | 'invalid_provider'
  | 'invalid_amount'
  | 'invalid_ttl'
  | 'duplicate_user'
  | 'duplicate_project'
  | 'unknown_user'
  | 'unknown_project'
  | 'unknown_token'
  | 'no_membership_request'
  | 'already_member'
  | 'not_member'
  | 'membership_not_approved'
  | 'no_allocation'
  | 'invalid_limit';

export class AccessAdminError extends Error {
  readonly code: AdminErrorCode;
  constructor(code: AdminErrorCode, message: string) {
    super(message);
    this.name = 'AccessAdminError';
    this.code = code;
  }
}
