/**
 * Where each operator audit record goes as a structured log line. The shape is pino's
 * (`logger.info(fields, message)`), so a host's pino logger (or a child of it) can be passed as is.
 */
export interface AuditLineLogger {
  info(fields: Record<string, unknown>, message: string): void;
}

/** The default: one JSON object per line on stdout (level, time, msg, then the fields). */
export const consoleAuditLineLogger: AuditLineLogger = {
  info(fields, message) {
    console.log(JSON.stringify({ level: 'info', time: new Date().toISOString(), msg: message, ...fields }));
  },
};
