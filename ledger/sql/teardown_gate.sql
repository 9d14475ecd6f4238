-- teardown_gate: one row per instance any event names: may it be torn down, as far as the ledger
-- alone can tell. A run is "hosted" by the instance when any of its events is tagged with it (the
-- `runs` column of the instances view; labledger.reconcile.pull_verified.hosted_runs).
--   state            the instance's state from the instances view
--   runs             the hosted run ids (sorted)
--   runs_complete    hosted runs whose pull_verified verdict is 'complete'
--   runs_with_gaps   hosted runs whose pull_verified verdict is 'gaps'
--   runs_not_pulled  hosted runs with no pull listing at all
--   runs_active_after_listing  hosted runs with a run.heartbeat or run.exited (on this instance
--                    or untagged) after the latest full listing taken from this instance
--                    (ledger order: ts, writer, seq): what they wrote since is in no listing
--   blocking         the hosted runs that keep the gate shut (sorted): not 'complete', active
--                    after that listing, or never fully listed from this instance
--   approved_at, approved_override  the latest teardown.approved and whether it overrode a
--                    refusing gate; requested_at, requested_acknowledged: the latest
--                    teardown.requested and whether the provider acknowledged it;
--                    confirmed_at: the latest teardown.confirmed (the resource observed absent)
--   verdict          'released' (released or confirmed absent after its latest rent),
--                    'ready' (at least one hosted run and none blocking), else 'blocked'
-- `labledger gate teardown --instance I` is the authority (labledger.reconcile.pull_verified
-- evaluate_gate): it re-hashes the local bytes of every pulled file, counts only listings taken
-- from this instance (the latest full one plus later `--only` ones), refuses entries the pull
-- refused or whose roster hash differs, and accepts an announced object already in the local
-- store. This view cannot read bytes, so 'ready' says only that the ledger shows no gap: the gate
-- may still refuse (rotten local bytes), and in the rare cases above may pass a 'blocked' row.
CREATE OR REPLACE VIEW teardown_gate AS
WITH hosted AS (
    SELECT instance, unnest(runs) AS run FROM instances
),
instance_listing AS (
    -- per (run, instance): the latest full listing taken from that instance (`--only` ones
    -- show part of the box), and its ledger position
    SELECT run, instance AS listed_on,
           max(ts) AS ts,
           arg_max(writer, (ts, writer, seq)) AS writer,
           arg_max(seq, (ts, writer, seq)) AS seq
    FROM events
    WHERE kind = 'pull.listed' AND run IS NOT NULL AND instance IS NOT NULL
      AND coalesce(json_array_length(body->'only'), 0) = 0
    GROUP BY run, instance
),
active_after AS (
    -- the run wrote on this instance (or untagged) after that listing
    SELECT l.run, l.listed_on AS instance
    FROM instance_listing l
    JOIN events e ON e.run = l.run
    WHERE e.kind IN ('run.heartbeat', 'run.exited')
      AND (e.instance IS NULL OR e.instance = l.listed_on)
      AND (e.ts, e.writer, e.seq) > (l.ts, l.writer, l.seq)
    GROUP BY l.run, l.listed_on
),
judged AS (
    SELECT h.instance, h.run,
           coalesce(p.verdict, 'not pulled') AS verdict,
           a.run IS NOT NULL AS active_after_listing,
           l.run IS NOT NULL AS listed_here
    FROM hosted h
    LEFT JOIN pull_verified p USING (run)
    LEFT JOIN instance_listing l ON l.run = h.run AND l.listed_on = h.instance
    LEFT JOIN active_after a ON a.run = h.run AND a.instance = h.instance
),
per_instance AS (
    SELECT instance,
           count(*) FILTER (WHERE verdict = 'complete') AS runs_complete,
           count(*) FILTER (WHERE verdict = 'gaps') AS runs_with_gaps,
           count(*) FILTER (WHERE verdict = 'not pulled') AS runs_not_pulled,
           count(*) FILTER (WHERE active_after_listing) AS runs_active_after_listing,
           coalesce(list_sort(list(run) FILTER (WHERE verdict <> 'complete'
                                                OR active_after_listing OR NOT listed_here)),
                    CAST([] AS VARCHAR[])) AS blocking
    FROM judged
    GROUP BY instance
),
teardown AS (
    SELECT instance,
           max(ts) FILTER (WHERE kind = 'teardown.approved') AS approved_at,
           arg_max(coalesce(TRY_CAST(body->>'override' AS BOOLEAN), false), (ts, writer, seq))
               FILTER (WHERE kind = 'teardown.approved') AS approved_override,
           max(ts) FILTER (WHERE kind = 'teardown.requested') AS requested_at,
           arg_max(coalesce(TRY_CAST(body->>'acknowledged' AS BOOLEAN), false), (ts, writer, seq))
               FILTER (WHERE kind = 'teardown.requested') AS requested_acknowledged,
           max(ts) FILTER (WHERE kind = 'teardown.confirmed') AS confirmed_at
    FROM events
    WHERE instance IS NOT NULL
      AND kind IN ('teardown.approved', 'teardown.requested', 'teardown.confirmed')
    GROUP BY instance
)
SELECT
    i.instance,
    i.state,
    i.runs,
    coalesce(p.runs_complete, 0) AS runs_complete,
    coalesce(p.runs_with_gaps, 0) AS runs_with_gaps,
    coalesce(p.runs_not_pulled, 0) AS runs_not_pulled,
    coalesce(p.runs_active_after_listing, 0) AS runs_active_after_listing,
    coalesce(p.blocking, CAST([] AS VARCHAR[])) AS blocking,
    t.approved_at,
    t.approved_override,
    t.requested_at,
    t.requested_acknowledged,
    t.confirmed_at,
    CASE
        WHEN i.state = 'released'
             OR (t.confirmed_at IS NOT NULL
                 AND (i.rented_at IS NULL OR t.confirmed_at >= i.rented_at)) THEN 'released'
        WHEN len(i.runs) > 0 AND len(p.blocking) = 0 THEN 'ready'
        ELSE 'blocked'
    END AS verdict
FROM instances i
LEFT JOIN per_instance p USING (instance)
LEFT JOIN teardown t USING (instance)
ORDER BY i.instance;
