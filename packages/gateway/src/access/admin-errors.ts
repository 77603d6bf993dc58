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
  | 'invalid_limit';

export class AccessAdminError extends Error {
  readonly code: AdminErrorCode;
  readonly cliHint: string | undefined;
  constructor(code: AdminErrorCode, message: string, cliHint?: string) {
    super(message);
    this.name = 'AccessAdminError';
    this.code = code;
    this.cliHint = cliHint;
  }
}
