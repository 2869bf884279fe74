import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from './redactSecrets.js';

export type LogLevel = 'info' | 'warn' | 'error';

/** Error lines kept in memory for the diagnostics report. */
const RECENT_ERRORS = 10;

export interface LogFileOptions {
  /** Rotate when the file reaches this size (default 1 MiB). */
  maxBytes?: number;
  /** Rotated files kept: main.log.1 … main.log.N (default 3). */
  keep?: number;
  now?: () => Date;
}

/**
 * The console's log: `<user data>/logs/main.log`, one line per entry, rotated by size.
 * Written synchronously so that the line explaining a crash is on disk before the process
 * ends. Every line goes through redactSecrets: tokens and passwords are never written.
 */
export class LogFile {
  readonly path: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly now: () => Date;
  private size: number;
  /** The latest error lines (redacted), newest last: what the diagnostics report lists. */
  private readonly errors: string[] = [];

  constructor(readonly dir: string, options: LogFileOptions = {}) {
    this.path = join(dir, 'main.log');
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.keep = options.keep ?? 3;
    this.now = options.now ?? (() => new Date());
    mkdirSync(dir, { recursive: true });
    try {
      this.size = statSync(this.path).size;
    } catch {
      this.size = 0;
    }
  }

  info(message: string): void {
    this.write('info', message);
  }
  warn(message: string): void {
    this.write('warn', message);
  }
  error(message: string, err?: unknown): void {
    const detail = err instanceof Error ? `${err.message}${err.stack ? `\n${err.stack}` : ''}` : err !== undefined ? String(err) : '';
    this.write('error', detail ? `${message}: ${detail}` : message);
  }

  write(level: LogLevel, message: string): void {
    const line = `${this.now().toISOString()} ${level.toUpperCase()} ${redactSecrets(message)}\n`;
    if (level === 'error') {
      this.errors.push(line.trimEnd().split('\n')[0]!);
      if (this.errors.length > RECENT_ERRORS) this.errors.shift();
    }
    try {
      if (this.size + Buffer.byteLength(line) > this.maxBytes && this.size > 0) this.rotate();
      appendFileSync(this.path, line);
      this.size += Buffer.byteLength(line);
    } catch {
      // A log that cannot be written must not take the console down.
    }
  }

  /** The last error lines written (their first line each, redacted). */
  recentErrors(): string[] {
    return [...this.errors];
  }

  private rotate(): void {
    rmSync(`${this.path}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) {
      try {
        renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
      } catch {
        /* not there yet */
      }
    }
    renameSync(this.path, `${this.path}.1`);
    this.size = 0;
  }
}
