import { reactive } from 'vue';
import type { DesktopBridge } from '../../../shared/ipcContract.js';
import type { SearchHit } from '../../../shared/search.js';
import { invoke } from '../../platform/desktop/bridgeClient.js';

/** One environment's part of a search: still asking, answered, or what went wrong. */
export type EnvironmentSearchState = { environmentId: string; name: string } & ({ state: 'searching' } | { state: 'done'; total: number; shown: number } | { state: 'error'; message: string });

export interface CrossSearch {
  text: string;
  environments: EnvironmentSearchState[];
  hits: SearchHit[];
}

/**
 * A search over every environment at once: one `search.environment` call each, answered as
 * each environment answers (progress per environment); a newer search makes the answers of an
 * older one be ignored.
 */
export function createCrossSearch(bridge: DesktopBridge) {
  const search = reactive<CrossSearch>({ text: '', environments: [], hits: [] });
  let run = 0;

  async function start(text: string, environments: ReadonlyArray<{ id: string; name: string }>): Promise<void> {
    const mine = ++run;
    search.text = text;
    search.hits = [];
    search.environments = environments.map((e) => ({ environmentId: e.id, name: e.name, state: 'searching' }));
    await Promise.all(
      environments.map(async (env, i) => {
        let next: EnvironmentSearchState;
        try {
          const answer = await invoke(bridge, 'search.environment', env.id, text);
          if (mine !== run) return;
          search.hits.push(...answer.hits);
          next = { environmentId: env.id, name: env.name, state: 'done', total: answer.total, shown: answer.hits.length };
        } catch (err) {
          if (mine !== run) return;
          next = { environmentId: env.id, name: env.name, state: 'error', message: err instanceof Error ? err.message : String(err) };
        }
        search.environments[i] = next;
      }),
    );
  }

  return { search, start };
}

/** What the search status line says: progress, then totals and failures. */
export function describeSearch(search: CrossSearch): string {
  const all = search.environments.length;
  if (all === 0) return '';
  const waiting = search.environments.filter((e) => e.state === 'searching').length;
  const failed = search.environments.filter((e) => e.state === 'error').length;
  const found = search.hits.length;
  const tasks = `${found} ${found === 1 ? 'task' : 'tasks'}`;
  if (waiting > 0) return `Searching… ${all - waiting} of ${all} environments answered, ${tasks} so far`;
  return `${tasks} in ${all} ${all === 1 ? 'environment' : 'environments'}${failed > 0 ? `; ${failed} could not answer` : ''}`;
}
