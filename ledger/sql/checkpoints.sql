-- checkpoints: one row per checkpoint.saved event, oldest first, with whether its bytes are in the
-- content store according to the ledger.
--   stored      the event's own claim: true when the file was copied into the CAS, false for
--               `labledger checkpoint --digest-only` (digest and size only; bytes stayed on the box)
--   in_store    the ledger holds evidence that the CAS has these bytes: this event or any other
--               stored them (checkpoint.saved with stored=true, artifact.recorded, or a successful
--               artifact.pulled of the same digest; content addressing makes the path irrelevant),
--               and no object.quarantined for that digest came after the last such event.
--               A view cannot read the filesystem: `labledger check --deep` is what re-hashes the
--               objects themselves.
--   verified    the latest checkpoint.verified for the digest: true (loaded safely), false, or NULL
--               when it was never loaded
-- `stored` is omitted from a body when true (bodies omit defaults), hence the coalesce.
CREATE OR REPLACE VIEW checkpoints AS
WITH saved AS (
    SELECT
        id, run, instance, ts, writer, seq,
        body->>'path' AS path,
        body->>'digest' AS digest,
        TRY_CAST(body->>'size' AS BIGINT) AS size,
        coalesce(TRY_CAST(body->>'stored' AS BOOLEAN), true) AS stored,
        TRY_CAST(body->>'step' AS BIGINT) AS step,
        TRY_CAST(body->>'epoch' AS BIGINT) AS epoch,
        body->>'role' AS role,
        body->'metrics' AS metrics
    FROM events
    WHERE kind = 'checkpoint.saved'
),
evidence AS (
    SELECT
        body->>'digest' AS digest,
        max(ts) FILTER (WHERE kind = 'artifact.recorded'
            OR (kind = 'checkpoint.saved' AND coalesce(TRY_CAST(body->>'stored' AS BOOLEAN), true))
            OR (kind = 'artifact.pulled' AND TRY_CAST(body->>'ok' AS BOOLEAN))) AS stored_ts,
        max(ts) FILTER (WHERE kind = 'object.quarantined') AS quarantined_ts,
        arg_max(TRY_CAST(body->>'ok' AS BOOLEAN), (ts, writer, seq))
            FILTER (WHERE kind = 'checkpoint.verified') AS verified
    FROM events
    WHERE kind IN ('artifact.recorded', 'checkpoint.saved', 'artifact.pulled',
                   'object.quarantined', 'checkpoint.verified')
      AND body->>'digest' IS NOT NULL
    GROUP BY body->>'digest'
)
SELECT
    s.run,
    s.step,
    s.epoch,
    s.role,
    s.path,
    s.digest,
    s.size,
    s.stored,
    coalesce(e.stored_ts IS NOT NULL
             AND (e.quarantined_ts IS NULL OR e.quarantined_ts < e.stored_ts), false) AS in_store,
    e.verified,
    s.metrics,
    s.ts,
    s.instance,
    s.id
FROM saved s
LEFT JOIN evidence e USING (digest)
ORDER BY s.ts, s.writer, s.seq;
