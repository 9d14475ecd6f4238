-- runs: one row per run id, derived from events only (no stored state can go stale).
--   state: 'running'   the latest launch/exit event is a run.launched
--          'succeeded' the latest launch/exit event is a run.exited with exit_code 0
--          'failed'    the latest launch/exit event is a run.exited with another code or a signal
--          'recorded'  events mention the run but it was never launched through labledger
-- Ties in time are broken by writer and seq so the answer is deterministic. exit_code and
-- exit_signal come from the latest run.exited even where it lacks them (arg_max_null): an older
-- exit's signal must not outlive a relaunch.
CREATE OR REPLACE VIEW runs AS
WITH lifecycle AS (
    SELECT
        run,
        arg_max(kind, (ts, writer, seq)) AS last_kind,
        arg_max_null(TRY_CAST(body->>'exit_code' AS BIGINT), (ts, writer, seq))
            FILTER (WHERE kind = 'run.exited') AS exit_code,
        arg_max_null(TRY_CAST(body->>'signal' AS BIGINT), (ts, writer, seq))
            FILTER (WHERE kind = 'run.exited') AS exit_signal,
        arg_max(body->>'host', (ts, writer, seq)) FILTER (WHERE kind = 'run.launched') AS launch_host
    FROM events
    WHERE run IS NOT NULL AND kind IN ('run.launched', 'run.exited')
    GROUP BY run
),
totals AS (
    SELECT
        run,
        min(ts) AS first_ts,
        max(ts) AS last_ts,
        count(*) AS events,
        count(*) FILTER (WHERE kind = 'checkpoint.saved') AS checkpoints,
        arg_max(instance, (ts, writer, seq)) FILTER (WHERE instance IS NOT NULL) AS instance,
        arg_max(writer, (ts, writer, seq)) AS last_writer
    FROM events
    WHERE run IS NOT NULL
    GROUP BY run
)
SELECT
    t.run,
    CASE
        WHEN l.last_kind IS NULL THEN 'recorded'
        WHEN l.last_kind = 'run.launched' THEN 'running'
        WHEN l.exit_code = 0 AND l.exit_signal IS NULL THEN 'succeeded'
        ELSE 'failed'
    END AS state,
    t.first_ts,
    t.last_ts,
    CASE WHEN l.last_kind = 'run.exited' THEN l.exit_code END AS exit_code,
    CASE WHEN l.last_kind = 'run.exited' THEN l.exit_signal END AS exit_signal,
    t.checkpoints,
    t.events,
    coalesce(l.launch_host, t.last_writer) AS host,
    t.instance
FROM totals t
LEFT JOIN lifecycle l USING (run);
