import { svcTasksUpdatedBody } from './002_readModels.js';
import { svcTasksRunsFinishedBody } from './003_searchFailuresLatency.js';

/** Transaction setting by which a statement says it appended the read-model deltas of its own updates. */
export const DELTAS_WRITTEN_SETTING = 'svc_monitor.deltas_written';

/**
 * PostgreSQL migration 5: the UPDATE triggers of `tasks` step aside for a statement that appends
 * the read-model deltas of its changes itself (it sets DELTAS_WRITTEN_SETTING to 'on' for its
 * transaction). The engine's steady-state group commit (run ends and claims in one statement)
 * does, because it knows which rows moved from where to where without joining the transition
 * tables; the triggers' dozen statements per UPDATE were half the server's work per task. Every
 * other writer leaves the setting unset and the triggers keep the read models as before.
 */
/** A trigger function that returns at once when its statement wrote its own deltas, else runs `body`. */
const stepAside = (name: string, body: string) => `
CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  IF current_setting('${DELTAS_WRITTEN_SETTING}', true) = 'on' THEN RETURN NULL; END IF;
${body}
  RETURN NULL;
END $fn$;
`;

export const pgMigration005UpdateTriggersStepAside = `${stepAside('svc_tasks_updated', svcTasksUpdatedBody)}${stepAside('svc_tasks_runs_finished', svcTasksRunsFinishedBody)}`;
