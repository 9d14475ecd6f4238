-- runs: one row per run id, derived from events only (no stored state can go stale).
--
-- state is read off the run's LATEST lifecycle event (run.launched, run.heartbeat, run.exited,
-- capsule.sealed, capsule.quarantined; later by time wins, ties broken by writer then seq). Each
-- state comes from its own event and is never inferred from an earlier one:
--   'launched'     the latest is a run.launched (no heartbeat since). If that launch promised
--                  heartbeats (heartbeat_interval_s) and none came within stalled_after_s, 'stalled'
--   'running'      the latest is a run.heartbeat no older than stalled_after_s (see "now" below)
--   'stalled'      the latest is a run.heartbeat older than stalled_after_s (or see 'launched')
--   'exited-ok'    the latest is a run.exited with exit_code 0 and no signal
--   'failed'       the latest is a run.exited with another exit code (or none)
--   'killed'       the latest is a run.exited with a signal
--   'sealed'       the run has a capsule.sealed, whatever came after it: a seal is final (a run
--                  is never closed twice), so heartbeats or the run.exited of a run closed with
--                  `close --allow-running` do not turn it back into running or exited
--   'quarantined'  the latest is a capsule.quarantined
--   'lost'         the latest is a run.launched or run.heartbeat (no run.exited), and the run's
--                  instance (of its latest launch, else of its latest event naming one) was
--                  stopped, released or confirmed absent (instance.stopped, instance.released,
--                  teardown.confirmed) at or after it: the box is gone or was shut down (a stop
--                  kills every process on it), so the run cannot be running or launched; a run
--                  resumed after instance.started records a new launch or heartbeat
--   'recorded'     events mention the run but it has no lifecycle event
-- 'running' and 'stalled' depend on the clock: "now" is DuckDB's current_timestamp, the start of
-- the query's transaction, so every row of one query is judged at the same instant (select
-- current_timestamp alongside to see it). stalled_after_s is 3 x the heartbeat_interval_s of the
-- latest run.launched, or 600 s when it recorded none.
--
-- exit_code / exit_signal come from the latest run.exited even where it lacks them
-- (arg_max_null: an older exit's signal must not outlive a newer exit) and are NULL once a later
-- run.launched starts the run again; heartbeats and capsule events do not clear them.
--
-- Evidence, so that "the log said done" never reads as finished work:
--   checkpoints           every checkpoint.saved event of the run (claims, whatever their bytes)
--   checkpoints_stored    those whose bytes the CAS holds according to the ledger: the same rule
--                         as the `in_store` column of the checkpoints view (an event that stored
--                         the digest: checkpoint.saved with stored=true, artifact.recorded, or a
--                         successful artifact.pulled; and no object.quarantined for the digest
--                         after the last such event). A view cannot read the filesystem;
--                         `labledger check --deep` re-hashes the objects themselves.
--   checkpoints_verified  distinct checkpoint digests whose latest checkpoint.verified is ok
-- A run that exited 0 but never recorded a stored checkpoint shows state 'exited-ok' with
-- checkpoints_stored = 0.
CREATE OR REPLACE VIEW runs AS
WITH lifecycle AS (
    SELECT
        run,
        arg_max(kind, (ts, writer, seq)) AS last_kind,
        bool_or(kind = 'capsule.sealed') AS ever_sealed,
        arg_max(ts, (ts, writer, seq)) AS state_ts,
        max(ts) FILTER (WHERE kind = 'run.heartbeat') AS last_heartbeat_ts,
        arg_max((ts, writer, seq), (ts, writer, seq)) FILTER (WHERE kind = 'run.launched')
            AS launch_key,
        arg_max((ts, writer, seq), (ts, writer, seq)) FILTER (WHERE kind = 'run.exited')
            AS exit_key,
        arg_max_null(TRY_CAST(body->>'exit_code' AS BIGINT), (ts, writer, seq))
            FILTER (WHERE kind = 'run.exited') AS exit_code,
        arg_max_null(TRY_CAST(body->>'signal' AS BIGINT), (ts, writer, seq))
            FILTER (WHERE kind = 'run.exited') AS exit_signal,
        arg_max(body->>'host', (ts, writer, seq)) FILTER (WHERE kind = 'run.launched')
            AS launch_host,
        arg_max(instance, (ts, writer, seq)) FILTER (WHERE kind = 'run.launched')
            AS launch_instance,
        arg_max_null(TRY_CAST(body->>'heartbeat_interval_s' AS DOUBLE), (ts, writer, seq))
            FILTER (WHERE kind = 'run.launched') AS heartbeat_interval_s
    FROM events
    WHERE run IS NOT NULL
      AND kind IN ('run.launched', 'run.heartbeat', 'run.exited', 'capsule.sealed',
                   'capsule.quarantined')
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
),
saved AS (
    -- in_store and verified follow the `checkpoints` view's rules (one definition, not two)
    SELECT
        run,
        count(*) FILTER (WHERE in_store) AS checkpoints_stored,
        count(DISTINCT digest) FILTER (WHERE verified) AS checkpoints_verified
    FROM checkpoints
    WHERE run IS NOT NULL
    GROUP BY run
),
gone AS (
    -- when each instance was last stopped, released or confirmed absent
    SELECT instance, max(ts) AS gone_ts
    FROM events
    WHERE instance IS NOT NULL
      AND kind IN ('instance.stopped', 'instance.released', 'teardown.confirmed')
    GROUP BY instance
),
judged AS (
    SELECT
        l.*,
        coalesce(3 * l.heartbeat_interval_s, 600.0) AS stalled_after_s,
        epoch(current_timestamp) - epoch(l.state_ts) AS state_age_s,
        -- a relaunch after the latest exit clears the exit's code and signal
        l.exit_key IS NOT NULL AND (l.launch_key IS NULL OR l.exit_key > l.launch_key)
            AS exit_is_current
    FROM lifecycle l
)
SELECT
    t.run,
    CASE
        WHEN j.last_kind IS NULL THEN 'recorded'
        WHEN j.ever_sealed THEN 'sealed'
        WHEN j.last_kind = 'capsule.quarantined' THEN 'quarantined'
        WHEN j.last_kind = 'run.exited' AND j.exit_signal IS NOT NULL THEN 'killed'
        WHEN j.last_kind = 'run.exited' AND j.exit_code = 0 THEN 'exited-ok'
        WHEN j.last_kind = 'run.exited' THEN 'failed'
        WHEN g.gone_ts >= j.state_ts THEN 'lost'
        WHEN j.last_kind = 'run.heartbeat' AND j.state_age_s <= j.stalled_after_s THEN 'running'
        WHEN j.last_kind = 'run.heartbeat' THEN 'stalled'
        WHEN j.heartbeat_interval_s IS NOT NULL AND j.state_age_s > j.stalled_after_s
            THEN 'stalled'
        ELSE 'launched'
    END AS state,
    t.first_ts,
    t.last_ts,
    CASE WHEN j.exit_is_current THEN j.exit_code END AS exit_code,
    CASE WHEN j.exit_is_current THEN j.exit_signal END AS exit_signal,
    t.checkpoints,
    t.events,
    coalesce(j.launch_host, t.last_writer) AS host,
    t.instance,
    j.state_ts,
    j.last_heartbeat_ts,
    j.heartbeat_interval_s,
    CASE WHEN j.last_kind IS NOT NULL THEN j.stalled_after_s END AS stalled_after_s,
    coalesce(s.checkpoints_stored, 0) AS checkpoints_stored,
    coalesce(s.checkpoints_verified, 0) AS checkpoints_verified
FROM totals t
LEFT JOIN judged j USING (run)
LEFT JOIN saved s USING (run)
LEFT JOIN gone g ON g.instance = coalesce(j.launch_instance, t.instance);
