/**
 * Why an administrative action was refused. `message` says what is wrong in words any caller
 * can show (the dashboard, the admin API, the CLI); `cliHint` is the whole gatewayctl command
 * that would fix it, which only the CLI prints: end users never see operator commands.
 */
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
  | 'unknown_admin_key'
  | 'invalid_thresholds'
  | 'invalid_webhook';

/**
 * `reason` says what is wrong; `message` adds the gatewayctl command that helps, when there is
 * one (gatewayctl prints it). The admin API answers with `reason` alone: its caller fixes things
 * with HTTP requests, not commands.
 */
export class AccessAdminError extends Error {
  readonly code: AdminErrorCode;
  /** The refusal in words any caller can show (the same as `message`): the admin API sends it. */
  readonly reason: string;
  readonly cliHint: string | undefined;
  constructor(code: AdminErrorCode, reason: string, cliHint?: string) {
    super(reason);
    this.name = 'AccessAdminError';
    this.code = code;
    this.reason = reason;
    this.cliHint = cliHint;
  }
}
