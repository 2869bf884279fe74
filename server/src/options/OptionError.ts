/**
 * A refused option: names who reads it (`createMonitoring`, `createHub`, `openSqliteStorage`,
 * `createEngine`, `svc-monitor-server`…) and the option. A TypeError, as a wrong argument is.
 */
export class OptionError extends TypeError {
  constructor(
    readonly owner: string,
    readonly option: string,
    /** What is wrong, completing `option "<name>" …` (e.g. `must be a boolean`). */
    readonly detail: string,
  ) {
    super(detail === UNKNOWN ? `${owner}: unknown option "${option}"` : `${owner}: option "${option}" ${detail}`);
    this.name = 'OptionError';
  }

  static unknown(owner: string, option: string): OptionError {
    return new OptionError(owner, option, UNKNOWN);
  }
}

const UNKNOWN = 'is unknown';
