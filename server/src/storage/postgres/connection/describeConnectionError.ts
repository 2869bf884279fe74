/** Where a connection string points, for messages (never the password). */
export function describeTarget(connectionString: string): { host: string; port: string; database: string; user: string } {
  const url = new URL(connectionString);
  return {
    host: decodeURIComponent(url.hostname) || url.searchParams.get('host') || 'localhost',
    port: url.port || '5432',
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default)',
    user: decodeURIComponent(url.username) || '(default)',
  };
}

interface PgLikeError {
  code?: string;
  message?: string;
  errors?: PgLikeError[];
}

/**
 * The cause of a failed connection in words a user acts on: unreachable server (refused, no such
 * host, timeout), authentication refused, unknown database, or the server's own message.
 */
export function describeConnectionError(err: unknown, target: { host: string; port: string; database: string; user: string }): string {
  const e = (err ?? {}) as PgLikeError;
  // A host name resolving to several addresses fails with an AggregateError of per-address errors.
  const first = e.errors?.[0] ?? e;
  const code = e.code ?? first.code;
  const where = `PostgreSQL at ${target.host}:${target.port}`;
  switch (code) {
    case 'ECONNREFUSED':
      return `${where} is unreachable: connection refused (is the server running and listening there?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${where} is unreachable: the host name ${target.host} does not resolve`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} is unreachable: ${code}`;
    case '28P01':
      return `${where} refused the password of user "${target.user}" (password authentication failed)`;
    case '28000':
      return `${where} refused user "${target.user}": ${e.message ?? 'not authorized'}`;
    case '3D000':
      return `${where} has no database "${target.database}"`;
    default:
      return `${where} could not be opened: ${e.message ?? first.message ?? String(err)}`;
  }
}
