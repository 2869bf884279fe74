/**
 * The head of the engine's single-row UPDATEs that change a task's status (run starts and ends,
 * admissions, promotions, cancels, stops).
 *
 * A status change fires the search-row trigger, which makes the statement one that may write
 * several rows; with its default conflict rule (ABORT: undo the statement alone) SQLite then
 * keeps a statement journal, a copy of every page the statement changes, in memory up to 64 KiB
 * and past that (a status write changes 10 to 20 pages of the row and its indexes) in a temporary
 * file that stays for the rest of the transaction: every later page change of the commit became
 * two writes to that file, and it cost a run about as much as all its other statements together.
 * `OR FAIL` needs no statement journal (a failed statement keeps what it wrote before the
 * failure), and loses nothing here: these statements only run inside the task writer's
 * transaction, which any error rolls back whole.
 */
export const UPDATE_TASK_STATUS = 'UPDATE OR FAIL tasks';
