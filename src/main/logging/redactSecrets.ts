/**
 * Removes what must never reach a log file or a support bundle: Authorization and
 * Proxy-Authorization header values (any scheme), bearer tokens, JWTs, credentials in a URL,
 * token-like query values (SignalR puts the token in the WebSocket URL; a sign-in's `code`),
 * and token/password fields of JSON or key=value text.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b((?:proxy-)?authorization"?\s*[:=]\s*"?)(?:(basic|bearer|negotiate|ntlm|digest)\s+)?[^\s",;]+/gi, (_m, head: string, scheme?: string) => `${head}${scheme ? `${scheme} ` : ''}[redacted]`)
    .replace(/\b(Bearer)\s+(?!\[redacted)[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]')
    .replace(/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, '[redacted-jwt]')
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"']+@/gi, '$1')
    .replace(/([?&](?:access_token|id_token|refresh_token|token|password|secret|api[_-]?key|code|sig|signature)=)[^&\s"']*/gi, '$1[redacted]')
    .replace(/("(?:token|accessToken|access_token|refreshToken|password|magicToken|secret|apiKey)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, '$1"[redacted]"')
    .replace(/\b(password|token|secret)(\s*[=:]\s*)(?!\[redacted)[^\s,;&"']+/gi, '$1$2[redacted]');
}
