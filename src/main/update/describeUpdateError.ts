/**
 * One line a user can act on for an updater failure (the About box and the log show it).
 * electron-updater's own messages carry stacks, raw YAML and long hashes; this keeps the
 * reason and drops the rest.
 */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_CONNECTION_REFUSED', 'ERR_NAME_NOT_RESOLVED', 'ERR_INTERNET_DISCONNECTED']);

export function describeUpdateError(err: unknown): string {
  const e = (err ?? {}) as { code?: unknown; statusCode?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (code === 'ERR_CHECKSUM_MISMATCH') return 'The downloaded update failed its sha512 check and was discarded (damaged download or altered feed); the current version stays.';
  if (code === 'ERR_UPDATER_INVALID_SIGNATURE') return 'The downloaded update is not signed by the publisher and was discarded; the current version stays.';
  if (code === 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND' || code === 'ERR_UPDATER_LATEST_VERSION_NOT_FOUND') return 'The update feed has no release description for this platform (latest-*.yml not found).';
  if (code === 'ERR_UPDATER_INVALID_UPDATE_INFO' || code === 'ERR_UPDATER_NO_FILES_PROVIDED' || code === 'ERR_UPDATER_NO_CHECKSUM' || code === 'ERR_UPDATER_INVALID_VERSION') {
    return 'The update feed’s release description is invalid; no update was downloaded.';
  }
  const network = UNREACHABLE.has(code) ? code : /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|net::ERR_[A-Z_]+)\b/.exec(message)?.[1];
  if (network) return `The update feed cannot be reached (${network}); the next check is in 12 hours, or use Check for updates.`;
  if (typeof e.statusCode === 'number') return `The update feed answered HTTP ${e.statusCode}.`;
  const first = message.split('\n')[0]!.trim();
  return `Update failed: ${first.length > 200 ? `${first.slice(0, 199)}…` : first}`;
}
