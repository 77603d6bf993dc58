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
  | 'invalid_limit'
  | 'invalid_scope'
  | 'invalid_description'
  | 'unknown_admin_key';

/**
 * `reason` says what is wrong; `message` adds the gatewayctl command that helps, when there is
 * one (gatewayctl prints it). The admin API answers with `reason` alone: its caller fixes things
 * with HTTP requests, not commands.
 */
export class AccessAdminError extends Error {
  readonly code: AdminErrorCode;
  readonly reason: string;
  constructor(code: AdminErrorCode, reason: string, commandHint?: string) {
    super(commandHint === undefined ? reason : `${reason} ${commandHint}`);
    this.name = 'AccessAdminError';
    this.code = code;
    this.reason = reason;
  }
}
