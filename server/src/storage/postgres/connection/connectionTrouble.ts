import { StoreUnavailableError } from '../../EngineStore.js';
import type { PostgresTarget } from '../PostgresStorage.js';

/** Socket-level failures of a connection (node's codes). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * Server codes meaning "the connection or the server went away": connection exceptions (class
 * 08), administrator or crash shutdown, the server not accepting connections, too many
 * connections, and a database that does not accept connections now.
 */
const LOST_CODES = new Set(['57P01', '57P02', '57P03', '53300', '55000']);
/** Server codes of a transaction rolled back by a conflict with another one: nothing applied, retry. */
const CONFLICT_CODES = new Set(['40001', '40P01', '55P03']);
/** node-postgres messages of a connection that ended or could not be made (no code on these). */
const LOST_MESSAGES = /Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended|connection error/i;

interface PgLikeError {
  code?: string;
  message?: string;
}

export type Trouble = 'lost' | 'conflict' | null;

/** Whether an error is a lost connection (the outcome of a statement in flight is unknown), a conflict (rolled back), or neither. */
export function classifyTrouble(err: unknown): Trouble {
  const e = (err ?? {}) as PgLikeError;
  const code = typeof e.code === 'string' ? e.code : '';
  if (CONFLICT_CODES.has(code)) return 'conflict';
  if (SOCKET_CODES.has(code) || LOST_CODES.has(code) || code.startsWith('08')) return 'lost';
  if (code === '' && LOST_MESSAGES.test(e.message ?? '')) return 'lost';
  return null;
}

/** The error as the engine's "try again later" signal, naming the server; the error itself when it is not connection trouble. */
export function asStoreUnavailable(err: unknown, target: PostgresTarget, trouble: Trouble = classifyTrouble(err)): unknown {
  if (trouble === null) return err;
  const e = (err ?? {}) as PgLikeError;
  const where = `PostgreSQL at ${target.host}:${target.port}/${target.database}`;
  const message =
    trouble === 'conflict'
      ? `${where} rolled the write back (conflict with another transaction: ${e.message ?? e.code}); retrying`
      : `the connection to ${where} was lost (${e.message ?? e.code ?? String(err)}); retrying with backoff`;
  return new StoreUnavailableError(message, e.code ?? 'CONNECTION_LOST', { cause: err });
}
