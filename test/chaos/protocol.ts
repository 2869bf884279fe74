// What the harness and its engine processes tell each other (test/chaos/engineChild.ts).

/** One engine process's settings, as JSON in its SVC_CHAOS environment variable. */
export interface ChildSettings {
  backend: 'sqlite' | 'postgres';
  /** The SQLite file or the PostgreSQL connection string. */
  location: string;
  /** This life's name, e.g. "p2#3" (slot 2, third life): unique within a run. */
  proc: string;
  logFile: string;
  /** process.hrtime.bigint() of the harness at its start, as text: the origin of every log time. */
  originNs: string;
  leaseMs: number;
  /** How long engine.stop() lets handlers finish after a SIGTERM. */
  graceMs: number;
}

/** A request the harness sends over the IPC channel. */
export type ChildCommand =
  | { id: number; op: 'dispatch'; type: string; ms: number; count: number }
  | { id: number; op: 'cancel'; task: string }
  | { id: number; op: 'schedule'; key: string; every: string; ms: number };

/** One line of a process's log; t in µs since the harness's origin, on CLOCK_MONOTONIC. */
export interface LogLine {
  k: 'begin' | 'end' | 'event' | 'dispatched' | 'cancel' | 'schedule' | 'health' | 'started' | 'stopping' | 'stopped' | 'leaseLost' | 'error';
  proc: string;
  t: number;
  task?: string;
  attempt?: number;
  outcome?: string;
  kind?: string;
  type?: string;
  result?: string;
  stale?: number;
  instanceId?: string;
  pid?: number;
  /** leaseLost: µs since the heartbeat written last before the lapse was sent (the lapse began one lease after it). */
  sinceUs?: number;
  /** error: where the engine reported it (EngineOptions.onError) and its message. */
  where?: string;
  message?: string;
}

/** Every process signs with one secret, so that one login's token works on each; the operator may manage. */
export const API_ACCESS = {
  options: { jwtSecret: 'chaos-harness-secret-0123456789abcdef0123456789abcdef0123456789abcdef', managementUsername: 'chaos', managementPassword: 'chaos-operator' },
  login: { username: 'chaos', password: 'chaos-operator' },
} as const;
