/**
 * PostgreSQL migration 14: an argument search reads only the rare words of its terms from the
 * full-text index, and the task rows it matches through an index.
 *
 * - `svc_request_lookup(terms)`: the words of the terms (as the search splits them) that at most
 *   half of the requests contain, by the statistics of `task_search.words` (their most common
 *   elements); when every word is more common than that, the least common one alone. A GIN scan
 *   of "CUST-42" as the phrase `cust <-> 42` advanced through the posting tree of `cust`, a word of
 *   every request, once for each candidate of `42`: at 10 M rows most of the search's time. A word
 *   in more than half of the requests removes less than half of the candidates, which walking its
 *   posting tree costs more than checking them; rarer words are kept, so that two words each in a
 *   few percent of the requests still narrow the candidates together. The search reads the index
 *   for these words and checks the whole phrases on the rows it found, so its results are those
 *   of the phrases alone. No statistics yet (a new table): every word.
 * - `ux_tasks_seq` carries `created_at` and `status`: the matched rows' sort key and status filter
 *   come from the index (an index-only scan) instead of one task row read per match. Every status
 *   change already writes an entry in this index (status is indexed elsewhere, so no status write
 *   is a HOT update), so the engine writes nothing more.
 */
export const pgMigration014SearchLookupAndCoveringSeq = `
CREATE FUNCTION svc_request_lookup(terms text[]) RETURNS tsquery LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT AS $fn$
DECLARE
  common text[];
  freqs real[];
  kept text[];
  rarest text;
BEGIN
  SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs INTO common, freqs FROM pg_stats s
   WHERE s.schemaname = current_schema() AND s.tablename = 'task_search' AND s.attname = 'words';
  SELECT array_agg(w ORDER BY f, w) FILTER (WHERE f <= 0.5), (array_agg(w ORDER BY f, w))[1] INTO kept, rarest
    FROM (SELECT w, COALESCE(freqs[array_position(common, w)], 0) AS f
            FROM (SELECT DISTINCT w FROM unnest(terms) AS t, unnest(tsvector_to_array(to_tsvector('simple', svc_search_words(t)))) AS w) AS words) AS ranked;
  IF rarest IS NULL THEN RETURN NULL; END IF;
  RETURN array_to_string(ARRAY(SELECT '''' || replace(replace(w, '\\', '\\\\'), '''', '''''') || '''' FROM unnest(COALESCE(kept, ARRAY[rarest])) AS w), ' & ')::tsquery;
END $fn$;

CREATE UNIQUE INDEX ux_tasks_seq_covering ON tasks (seq) INCLUDE (created_at, status);
DROP INDEX ux_tasks_seq;
ALTER INDEX ux_tasks_seq_covering RENAME TO ux_tasks_seq;
`;
