import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../fixtures/importGraph.js';

// storage/sqlite and storage/postgres keep the same sub-folders and the same file name for the
// same operation, so that a change to a write is "edit the same-named file in two folders". A
// file's name is compared with its backend's word taken out (createSqliteEngineStore.ts and
// createPostgresEngineStore.ts, sqliteReadDb.ts and postgresReadDb.ts are a pair). Numbered
// migrations are each backend's own history and are not compared. A file found in one tree only
// must be listed below, with the reason it has no twin; a listed file that gains a twin, or no
// longer exists, fails the test too, so the list stays true.
const STORAGE = join(ROOT, 'server/src/storage');

/** Folders only one backend has: what they hold has no counterpart in the other. */
const BACKEND_ONLY_FOLDERS: Record<'sqlite' | 'postgres', Record<string, string>> = {
  sqlite: {
    functions: 'SQL functions registered on each connection in JavaScript; PostgreSQL defines them in SQL, in its migrations.',
  },
  postgres: {
    coordination: 'several instances share one database: instance leases, advisory-locked queue capacity and global rate windows; SQLite has one writer process.',
    events: 'LISTEN/NOTIFY between instances; a SQLite engine publishes in process.',
  },
};

const PREPARED = 'SQLite prepares one statement per row shape and runs it per row; PostgreSQL does the same step as part of a set-based statement';
const SHARED_SCHEDULE_WRITES = 'written once for the schedule store and the storage operations of a process without an engine (management/); SQLite writes them inside its schedule store (setScheduleStatus.ts, setScheduleHalt.ts, cancelNotStartedTask.ts).';
const TRIGGERS = 'SQLite keeps the read models from code (per-transaction deltas, one task writer); PostgreSQL keeps them by statement triggers (readModels/readModelTriggerFunctions.ts); both from common/readModels/counters.ts.';

/** Files only one backend has, by path under its tree, with the reason. */
const BACKEND_ONLY_FILES: Record<'sqlite' | 'postgres', Record<string, string>> = {
  sqlite: {
    'connection/backgroundCheckpoint.ts': 'WAL checkpoints off the writer: a file database only.',
    'connection/openDatabase.ts': 'opens the file with its pragmas; PostgreSQL opens a pool in openPostgresStorage.ts.',
    'connection/retryWhileBusy.ts': 'SQLITE_BUSY between processes on one file; PostgreSQL waits on row locks.',
    'management/insertActorStatusAudit.ts': `${PREPARED}, in management/createPostgresTaskManagementStore.ts.`,
    'management/insertActorStatusAudits.ts': `${PREPARED}, in management/createPostgresTaskManagementStore.ts.`,
    'management/managedGroup.ts': TRIGGERS,
    'management/requeueTaskNow.ts': `${PREPARED}, in management/createPostgresTaskManagementStore.ts.`,
    'management/selectBulkCandidates.ts': `${PREPARED}, in management/createPostgresTaskManagementStore.ts.`,
    'management/selectManagedTask.ts': `${PREPARED}, in management/createPostgresTaskManagementStore.ts.`,
    'management/setTasksStatus.ts': `${PREPARED}, in management/createPostgresTaskManagementStore.ts.`,
    'monitoring/detectSchemaFeatures.ts': 'an older SQLite file may lack a later migration until opened by a writer; a PostgreSQL schema is migrated on open.',
    'readModels/TaskGroupColumns.ts': TRIGGERS,
    'readModels/applyReadModelDeltas.ts': TRIGGERS,
    'readModels/chunkedStatements.ts': 'multi-row statements under SQLite\'s variable limit, prepared once per row count; PostgreSQL inserts arrays with unnest.',
    'readModels/counterKeeper.ts': 'the per-transaction keeper generated from common/readModels/counters.ts; PostgreSQL generates trigger SQL from the same entries (readModels/readModelDeltas.ts).',
    'readModels/counterUpserts.ts': 'the counters\' upserts generated from common/readModels/counters.ts; PostgreSQL folds its delta tables in its roll-up.',
    'readModels/changeTaskRow.ts': TRIGGERS,
    'readModels/rebuildSearchRows.ts': 'search rows (FTS5 tables) are SQLite only; PostgreSQL searches with trigram indexes.',
    'readModels/runBucketMerge.ts': TRIGGERS,
    'readModels/selectTaskFacts.ts': TRIGGERS,
    'readModels/taskWriter.ts': TRIGGERS,
    'schedules/cancelNotStartedTask.ts': 'one not-started row → Cancelled with its read-model deltas, run per occurrence; PostgreSQL selects and cancels a schedule\'s open occurrences in one set-based statement (schedules/cancelOpenOccurrences.ts).',
    'schedules/countOccurrencesAfter.ts': 'occurrences per schedule read back by rowid for the code-side read-model deltas; PostgreSQL\'s triggers count the rows written.',
    'schedules/insertInChunks.ts': 'multi-row INSERTs under SQLite\'s variable limit; PostgreSQL inserts arrays with unnest.',
    'schedules/insertStatusAudit.ts': `${PREPARED}, in tasks/insertStatusAudits.ts.`,
    'schedules/insertStatusAudits.ts': 'the Pending audits of the rows above a rowid; PostgreSQL writes them in the occurrences\' own statement (schedules/insertOccurrences.ts).',
    'schedules/preparedStatement.ts': 'the per-connection statement cache of better-sqlite3.',
    'schedules/requeueTerminalTask.ts': 'PostgreSQL\'s requeue of an occurrence is written once for the engine\'s store and the storage operations (management/requeueOccurrence.ts).',
    'schedules/selectOpenOccurrences.ts': 'PostgreSQL selects (FOR UPDATE SKIP LOCKED) and cancels a schedule\'s open occurrences in one file (schedules/cancelOpenOccurrences.ts).',
    'schedules/setScheduleStatus.ts': 'a schedule row\'s status on cancel; PostgreSQL\'s is part of schedules/cancelSchedule.ts, written once with the storage operations.',
    'tasks/TaskRow.ts': 'column lists and predicates shared by the prepared statements.',
    'tasks/claimTasksAtOnce.ts': 'the claim of a group commit that starts and ends its runs at once; PostgreSQL\'s is tasks/fastCommit.ts.',
    'tasks/claimedGroups.ts': 'the row groups a claim read, kept for the run end\'s deltas; ' + TRIGGERS,
    'tasks/countQueued.ts': 'queue capacity counted by the one writer; PostgreSQL counts under an advisory lock (coordination/queueAdmission.ts).',
    'tasks/findOpenTaskByKey.ts': `${PREPARED}, in tasks/insertTasks.ts.`,
    'tasks/foreignWrites.ts': 'PRAGMA data_version: whether another connection wrote the file; PostgreSQL reads rows under lock.',
    'tasks/insertStatusAudit.ts': `${PREPARED}, in tasks/insertStatusAudits.ts.`,
    'tasks/lastLogSequence.ts': `${PREPARED}, in tasks/insertExecutionLogs.ts.`,
    'tasks/limitedSelect.ts': 'one prepared statement per LIMIT value (SQLite\'s planner); PostgreSQL binds the limit.',
    'tasks/nextWakeAt.ts': `${PREPARED}, in createPostgresEngineStore.ts.`,
    'tasks/prepareEngineStatements.ts': 'prepares every engine statement once on the writer connection.',
    'tasks/readTaskState.ts': `${PREPARED}, in tasks/cancelTasks.ts.`,
    'tasks/recoverTasks.ts': 'recovery at start of the one writer; PostgreSQL recovers by instance leases (coordination/instanceLeases.ts).',
    'tasks/startAndEndRuns.ts': 'runs started and ended in one commit; PostgreSQL\'s is tasks/fastCommit.ts.',
    'tasks/updatePendingTask.ts': `${PREPARED}, in tasks/insertTasks.ts.`,
  },
  postgres: {
    'PostgresStorage.ts': 'the pool, transactions and event bus one PostgreSQL storage holds; SQLite\'s is SqliteStorage in storage/Storage.ts.',
    'connection/connectionTrouble.ts': 'a lost or refused connection to a server; a SQLite file has none.',
    'connection/copyRows.ts': 'rows sent to a server in binary COPY; SQLite inserts rows in process by prepared statements.',
    'connection/databaseClock.ts': 'instances compare instants on the database\'s clock; SQLite runs in one process.',
    'connection/describeConnectionError.ts': 'a connection string\'s errors, without its password.',
    'connection/storeClient.ts': 'a pooled client and its transaction; SQLite has one connection (taskWriter).',
    'schedules/cancelSkippedOccurrences.ts': 'occurrences another transaction held during a schedule cancel, cancelled after its commit; SQLite\'s cancel holds the only writer, so no row is held by anyone else.',
    'connection/rowsTakenAway.ts': 'a cancel and an engine read on two pooled connections can answer out of order; SQLite answers on one connection.',
    'management/OperationRow.ts': 'schedule operations of a process without an engine (serve over PostgreSQL); SQLite\'s are in its schedule store.',
    'management/cancelSchedule.ts': 'schedule operations of a process without an engine (serve over PostgreSQL); SQLite\'s are in its schedule store.',
    'management/createPostgresScheduleOperations.ts': 'schedule operations of a process without an engine (serve over PostgreSQL); SQLite\'s are in its schedule store.',
    'management/releaseHalt.ts': 'schedule operations of a process without an engine (serve over PostgreSQL); SQLite\'s are in its schedule store.',
    'management/requeueOccurrence.ts': 'schedule operations of a process without an engine (serve over PostgreSQL); SQLite\'s are in its schedule store.',
    'monitoring/postgresMonitoringSource.ts': 'monitoring with no engine in the process: schedule operations and events through the database.',
    'readModels/readModelRollup.ts': 'the periodic fold of the delta tables into the rolled-up ones, generated from common/readModels/counters.ts; SQLite writes its counters\' tables in the writing transaction (readModels/counterUpserts.ts).',
    'readModels/readModelTriggerFunctions.ts': 'the live trigger functions of tasks, generated from common/readModels/counters.ts; SQLite keeps the same counters in code.',
    'schedules/cancelOpenOccurrences.ts': SHARED_SCHEDULE_WRITES,
    'schedules/cancelSchedule.ts': SHARED_SCHEDULE_WRITES,
    'schedules/releaseHalt.ts': SHARED_SCHEDULE_WRITES,
    'tasks/SqlParams.ts': 'numbered placeholders ($n) collected while a statement is built.',
    'tasks/confirmRuns.ts': 'the reservations and runs read in one round trip before handlers begin; SQLite answers from its connection at once (confirmRuns in createSqliteEngineStore.ts).',
    'tasks/fastCommit.ts': 'claim, start and end of short runs in one statement; SQLite\'s are tasks/claimTasksAtOnce.ts and tasks/startAndEndRuns.ts.',
  },
};

type Backend = 'sqlite' | 'postgres';

/** Every file under the backend's tree (numbered migrations left out), as a path relative to it. */
function tree(backend: Backend): string[] {
  const dir = join(STORAGE, backend);
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .filter((p) => !/^migrations\/\d/.test(p))
    .sort();
}

/** The name a file is compared by: its backend's word taken out. */
const pairName = (path: string) => path.replace(/Sqlite|Postgres/g, 'Backend').replace(/(^|\/)(sqlite|postgres)(?=[A-Z])/g, '$1backend');

const folders = (paths: readonly string[]) => [...new Set(paths.filter((p) => p.includes('/')).map((p) => p.split('/')[0]!))].sort();

/** The files of `backend` with no twin in `other` (compared by pair name). */
function unmatched(backend: Backend, other: Backend, trees: Record<Backend, string[]>): string[] {
  const others = new Set(trees[other].map(pairName));
  return trees[backend].filter((p) => !others.has(pairName(p)));
}

describe('storage/sqlite and storage/postgres are mirrored trees', () => {
  const trees: Record<Backend, string[]> = { sqlite: tree('sqlite'), postgres: tree('postgres') };

  it('both have the same sub-folders, but for the backend-only ones listed', () => {
    const shared = (b: Backend) => folders(trees[b]).filter((f) => !(f in BACKEND_ONLY_FOLDERS[b]));
    expect(shared('sqlite')).toEqual(shared('postgres'));
    for (const b of ['sqlite', 'postgres'] as const) expect(folders(trees[b])).toEqual(expect.arrayContaining(Object.keys(BACKEND_ONLY_FOLDERS[b])));
  });

  it('an operation file in one tree has a same-named twin in the other, or is listed with its reason', () => {
    for (const [b, other] of [['sqlite', 'postgres'], ['postgres', 'sqlite']] as const) {
      const onlyHere = unmatched(b, other, trees).filter((p) => !(p.split('/')[0]! in BACKEND_ONLY_FOLDERS[b]));
      expect(onlyHere, `files of storage/${b} with no twin in storage/${other}`).toEqual(Object.keys(BACKEND_ONLY_FILES[b]).sort());
    }
  });
});
