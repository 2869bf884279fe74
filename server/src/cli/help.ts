import { CLI_OPTION_KINDS } from './serveSettings.js';
import { camelToEnv, camelToKebab } from './parseFlags.js';

const DESCRIPTIONS: Record<string, string> = {
  enableUI: 'serve the dashboard at /svc-monitoring (default true)',
  enableOpenApiDocument: 'serve /svc-monitoring/openapi/svc-monitoring.json (default false)',
  enableScalar: 'serve the Scalar API reference at /svc-monitoring/scalar; enables the document',
  enableSwagger: 'obsolete no-op since 4.0.0 (warns)',
  username: 'read credential user (default admin)',
  password: 'read credential password (default admin)',
  jwtSecret: 'HS256 secret (default: random per process; tokens die at restart)',
  jwtIssuer: 'JWT issuer (default Svc.Monitor.Api)',
  jwtAudience: 'JWT audience (default Svc.Monitor.Api)',
  jwtExpirationHours: 'token lifetime in hours (default 8)',
  enableAuthentication: 'require a JWT on the API (default true)',
  enableCors: 'CORS policy under /svc-monitoring (default true)',
  corsAllowedOrigins: 'allowed origins, comma-separated (default: all)',
  allowedIpAddresses: 'IP allow-list: IPv4, IPv6, CIDR, comma-separated (default: all)',
  magicLinkToken: 'magic-link token, at least 32 characters (default none)',
  eventDebounceMs: 'dashboard cache-invalidation debounce (default 1000)',
  enableManagementEndpoints: 'expose requeue/resume/cancel (default false; needs an engine)',
  managementUsername: 'operate credential user (no default)',
  managementPassword: 'operate credential password (no default)',
  includeExecutionLogs: 'include execution logs in hub events (default false)',
  trustForwardedFor: 'read X-Forwarded-For from trusted proxies (default true; false trusts none)',
  trustedProxies: 'proxies whose X-Forwarded-For is believed: IPs, CIDRs, comma-separated (default: loopback)',
  hubMaxConnectionsPerClient: 'concurrent hub connections per client address (default 20; beyond: 429)',
  hubMaxConnections: 'concurrent hub connections in total (default 1000; beyond: 503)',
  loginRateLimit: 'true | false | {"limit":5,"windowMs":900000} (default true)',
  webRoot: 'folder of the built dashboard (default: the package web folder)',
};

export function helpText(): string {
  const lines = [
    'svc-monitor-server — background tasks on SQLite with a monitoring service',
    '',
    'Usage:',
    '  svc-monitor-server demo  [--port 5080] [--db file] [options]   engine with sample tasks + monitoring',
    '  svc-monitor-server serve --db file [--port 5080] [--config file.json] [options]',
    '                                                          standalone monitoring of an existing database (read-only)',
    '  svc-monitor-server serve --database postgres://user@host/db [options]',
    '                                                          monitoring of a PostgreSQL store shared by engine instances',
    '  svc-monitor-server --help',
    '',
    'Settings:',
    '  --db <file>          SQLite database file (serve: must exist)',
    '  --database <url>     PostgreSQL connection string (SVC_MONITOR_DATABASE); schema svc_monitor',
    '  --port <n>           HTTP port (default 5080; 0 = any free port)',
    '  --host <address>     listen address (default 127.0.0.1; 0.0.0.0 to expose)',
    '  --config <file>      JSON object of options (camelCase names below)',
    '',
    'Monitoring options (flag / environment variable):',
  ];
  for (const [name, kind] of Object.entries(CLI_OPTION_KINDS)) {
    const flag = `--${camelToKebab(name)}${kind === 'boolean' ? '[=true|false]' : ` <${kind}>`}`;
    lines.push(`  ${flag.padEnd(44)} ${camelToEnv(name).padEnd(42)} ${DESCRIPTIONS[name] ?? ''}`);
  }
  lines.push(
    '',
    'Secrets (jwt-secret, password, management-password, magic-link-token) belong in the environment or the config file:',
    'flags are visible in the process list, and passing one prints a warning.',
    'Booleans also accept --no-<flag>. Lists are comma-separated. Precedence: flags > environment > config file.',
    'demo only: --demo-dispatch-endpoint enables POST /demo/dispatch {"type":"fast"|"slow"|"flaky"|"failing"|"timeout"|"logging"}',
    '           on the demo host app (outside /svc-monitoring) for end-to-end tests.',
    'Exit codes: 0 normal stop (SIGINT/SIGTERM), 1 runtime failure, 2 bad usage, option, config or database.',
  );
  return lines.join('\n');
}
