import { defaultLabel, MONITORING_OPTIONS, type MonitoringOptionSpec } from '../monitoring/options.js';
import { CLI_OPTION_KINDS } from './serveSettings.js';
import { camelToEnv, camelToKebab } from './parseFlags.js';

const VALUE_OF_KIND: Record<string, string> = {
  boolean: '[=true|false]',
  string: ' <text>',
  integer: ' <n>',
  number: ' <n>',
  strings: ' <a,b,…>',
  'boolean|object': ' <true|false|json>',
  json: ' <json>',
};

export function helpText(): string {
  const lines = [
    'svc-monitor-server — background tasks on SQLite with a monitoring service',
    '',
    'Usage:',
    '  svc-monitor-server demo  [--port 5080] [--db file | --database postgres://…] [options]   engine with sample tasks + monitoring',
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
    '  --log-format <json|pretty|text>  SVC_MONITOR_LOG_FORMAT: JSON lines (default when stdout is not a terminal) or human lines',
    '  --log-level <level>  SVC_MONITOR_LOG_LEVEL: fatal, error, warn, info (default), debug, trace or silent',
    '  --drain-delay-ms <n> after SIGTERM, readiness answers 503 this long before the server stops accepting (default 0;',
    '                       behind a load balancer or in Kubernetes 5000) (SVC_MONITOR_DRAIN_DELAY_MS)',
    '  --stop-grace-ms <n>  how long running tasks may finish at a stop before they are handed back (default 2000)',
    '                       (SVC_MONITOR_STOP_GRACE_MS); the process exits within drain delay + grace + 5 s',
    '',
    'Monitoring options (flag / environment variable):',
  ];
  for (const [name, kind] of Object.entries(CLI_OPTION_KINDS)) {
    const flag = `--${camelToKebab(name)}${VALUE_OF_KIND[kind] ?? ` <${kind}>`}`;
    const spec: MonitoringOptionSpec = MONITORING_OPTIONS[name as keyof typeof MONITORING_OPTIONS];
    const label = defaultLabel(spec);
    const description = label === undefined ? spec.description : `${spec.description} (default ${label})`;
    lines.push(`  ${flag.padEnd(44)} ${camelToEnv(name).padEnd(42)} ${description}`);
  }
  lines.push(
    '',
    'Secrets (jwt-secret, password, management-password, magic-link-token, metrics-token, alerts with webhook secrets) belong in the environment or the config file:',
    'flags are visible in the process list, and passing one prints a warning.',
    'Booleans also accept --no-<flag>. Lists are comma-separated. Precedence: flags > environment > config file.',
    'demo only: --demo-dispatch-endpoint enables POST /demo/dispatch {"type":"fast"|"slow"|"flaky"|"failing"|"timeout"|"logging"}',
    '           on the demo host app (outside /svc-monitoring) for end-to-end tests.',
    'Probes: GET /svc-monitoring/health/live (200 while the process answers), /svc-monitoring/health/ready (200 or 503).',
    'Exit codes: 0 normal stop (SIGINT/SIGTERM), 1 runtime failure or a stop past its time, 2 bad usage, option, config or database.',
  );
  return lines.join('\n');
}
