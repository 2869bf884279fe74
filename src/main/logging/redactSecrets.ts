/**
 * Removes what must never reach a log file: bearer tokens, JWTs, `access_token=` query values
 * (SignalR puts the token in the WebSocket URL), and token/password fields of JSON or
 * key=value text.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b(Bearer)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]')
    .replace(/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, '[redacted-jwt]')
    .replace(/([?&](?:access_token|token|password)=)[^&\s"']*/gi, '$1[redacted]')
    .replace(/("(?:token|accessToken|access_token|password|magicToken|secret)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, '$1"[redacted]"')
    .replace(/\b(password|token|secret)(\s*[=:]\s*)(?!\[redacted)[^\s,;&"']+/gi, '$1$2[redacted]');
}
