export const HELP = `gatewayctl: administer the model gateway's accounts, projects, allocations and tokens.

Usage:
  gatewayctl users add --email E [--admin]
  gatewayctl users list [--json]
  gatewayctl projects add SLUG [--ip-allow CIDRS]
  gatewayctl projects ip-allow SLUG CIDRS|none
  gatewayctl projects list [--json]
  gatewayctl members list SLUG [--json]
  gatewayctl members request SLUG EMAIL
  gatewayctl members approve SLUG EMAIL [--admin]
  gatewayctl members revoke SLUG EMAIL
  gatewayctl allocations set SLUG PROVIDER USD
  gatewayctl limits set SLUG project|token [--rpm N|none] [--tpm N|none] [--concurrency N|none]
  gatewayctl limits show SLUG
  gatewayctl tokens issue --email E --project SLUG [--ttl 30m|12h|7d] [--description TEXT]
  gatewayctl tokens list [--email E] [--project SLUG] [--json]
  gatewayctl tokens revoke JTI
  gatewayctl usage SLUG [--since DATE] [--until DATE] [--by day|model|token|user] [--csv]
  gatewayctl admin-keys create --description TEXT [--scopes read,write] [--ttl 30d]
  gatewayctl admin-keys list [--json]
  gatewayctl admin-keys revoke ID
  gatewayctl alerts set SLUG [--thresholds 50,80,100] [--webhook URL|none]
  gatewayctl alerts show SLUG [--json]
  gatewayctl alerts rotate-secret SLUG
  gatewayctl alerts dismiss SLUG

Providers: developer, cloud_a, cloud_b, cloud_c. CIDRS: comma-separated IPv4/IPv6 ranges.
Limits: "project" limits the project as a whole, "token" each of its tokens; --rpm requests
per minute, --tpm tokens per minute, --concurrency requests at once; none removes a limit,
an option left out keeps its value. Changes reach every gateway instance within a second.
The list commands print a table, or with --json one JSON array for scripts; "tokens list"
without --email or --project lists every token (never the token itself, only its id).
"tokens issue" prints only the token (shown once; the gateway stores only its id).
"usage SLUG" prints each provider bucket's allocation and spend; with --since, --until or --by
it prints the spend of the period (default: all of it) per day (the default), provider and
model, token or user. DATE: a UTC date YYYY-MM-DD (as --until: that whole day included) or an
ISO timestamp (as --until: excluded). --csv prints CSV with a header row instead of a table.
Admin keys are the credentials of the admin API (/admin/v1): scope read (GET routes) and/or
write (every other route; default: read), lifetime GATEWAY_ADMIN_KEY_TTL (default 30d, at most
GATEWAY_ADMIN_KEY_MAX_TTL); "admin-keys create" prints only the key (shown once, stored hashed);
a revoked key is refused from its next request on.
Budget alerts: when a bucket's spend reaches a threshold (percent of its allocation; default
50,80,100) the gateway logs it, shows it on the project page and POSTs a signed JSON webhook.
The first --webhook prints a signing secret once; "alerts rotate-secret" prints a new one.
"alerts dismiss" hides the current alerts from the project page.

Configuration is read like the server's: GATEWAY_DATABASE_URL, GATEWAY_DATABASE_SCHEMA,
GATEWAY_DATA_DIR, GATEWAY_SIGNING_KEY_PATH, GATEWAY_TOKEN_TTL, GATEWAY_TOKEN_MAX_TTL,
GATEWAY_ADMIN_KEY_TTL, GATEWAY_ADMIN_KEY_MAX_TTL, GATEWAY_ALERT_WEBHOOK_ALLOW_HTTP,
GATEWAY_ALERT_WEBHOOK_ALLOW_PRIVATE.
Every command names the database it uses on stderr. Where the gateway has no database yet
(no SQLite file, no schema) a command refuses, unless given --create: then it creates one.

Exit status: 0 done, 1 refused (unknown project, unapproved member, no allocation, ...),
2 wrong usage.
`;
