-- pull_verified: one row per run that has a pull listing or announced checkpoints/artifacts,
-- as far as the ledger alone can tell.
--   expected    files of the run's LATEST pull.listed (type file) + roster entries missing on the
--               box + the latest checkpoint.saved / artifact.recorded of each path of the run
--               (role 'latest' excluded) whose digest is not listed
--   pulled      listed files with an ok artifact.pulled whose remote SHA-256 equals the listing's
--               and the local one (announced artifacts: an ok pull of the same digest)
--   checkpoints listed files with a checkpoint suffix plus announced checkpoint.saved
--   verified    of those, the ones whose latest checkpoint.verified for the digest is ok
--   missing     the expected paths not pulled with matching digests, sorted
--   verdict     'complete' (every expected file pulled and every checkpoint verified),
--               'gaps', or 'not pulled' (no listing)
-- The view cannot see bytes: `labledger verify-pull RUN` re-hashes the local objects and is the
-- authority (labledger.reconcile.pull_verified). A 'complete' row is necessary, not sufficient;
-- and an announced object whose bytes are already in the local store without a pull (attached
-- here) shows as a gap in the view while the gate, which looks at the store, accepts it.
CREATE OR REPLACE VIEW pull_verified AS
WITH listing AS (
    SELECT run,
           arg_max(id, (ts, writer, seq)) AS listing_id,
           arg_max(body, (ts, writer, seq)) AS body,
           max(ts) AS listed_at
    FROM events
    WHERE kind = 'pull.listed' AND run IS NOT NULL
    GROUP BY run
),
listed AS (
    SELECT run, e.path AS path, e.sha256 AS sha256, e.blake3 AS blake3
    FROM (SELECT run, unnest(from_json(body->'entries',
              '[{"path": "VARCHAR", "type": "VARCHAR", "sha256": "VARCHAR", "blake3": "VARCHAR"}]'
          )) AS e FROM listing)
    WHERE coalesce(e.type, 'file') = 'file'
),
roster_missing AS (
    SELECT run, unnest(from_json(body->'missing', '["VARCHAR"]')) AS path FROM listing
),
pulled_ok AS (
    SELECT run, body->>'path' AS path, body->>'remote_sha256' AS sha256,
           body->>'digest' AS digest
    FROM events
    WHERE kind = 'artifact.pulled' AND TRY_CAST(body->>'ok' AS BOOLEAN)
      AND body->>'remote_sha256' = body->>'local_sha256' AND body->>'digest' IS NOT NULL
),
latest_verification AS (
    SELECT body->>'digest' AS digest,
           arg_max(TRY_CAST(body->>'ok' AS BOOLEAN), (ts, writer, seq)) AS ok
    FROM events
    WHERE kind = 'checkpoint.verified'
    GROUP BY body->>'digest'
),
listed_status AS (
    SELECT l.run, l.path,
           bool_or(p.path IS NOT NULL AND (l.blake3 IS NULL OR p.digest = l.blake3)) AS pulled,
           any_value(p.digest) FILTER (WHERE p.path IS NOT NULL) AS digest,
           regexp_matches(lower(l.path), '\.(pth|pt|ckpt|bin|safetensors)$') AS is_checkpoint
    FROM listed l
    LEFT JOIN pulled_ok p ON p.run = l.run AND p.path = l.path AND p.sha256 = l.sha256
    GROUP BY l.run, l.path, l.blake3
),
latest_announcement AS (
    -- Per (run, path) only the latest save counts: earlier ones were overwritten on the box.
    -- A role='latest' checkpoint (the rolling resume anchor) is not expected unless listed.
    SELECT run, kind, body
    FROM (SELECT run, kind, body,
                 row_number() OVER (PARTITION BY run, body->>'path'
                                    ORDER BY ts DESC, writer DESC, seq DESC) AS nth
          FROM events
          WHERE kind IN ('checkpoint.saved', 'artifact.recorded') AND run IS NOT NULL)
    WHERE nth = 1
      AND NOT (kind = 'checkpoint.saved' AND coalesce(body->>'role', '') = 'latest')
),
announced AS (
    SELECT DISTINCT a.run, a.body->>'path' AS path, a.body->>'digest' AS digest,
           a.kind = 'checkpoint.saved' AS is_checkpoint
    FROM latest_announcement a
    WHERE true
      AND NOT EXISTS (SELECT 1 FROM listed_status s WHERE s.run = a.run
                      AND s.digest = a.body->>'digest')
      AND NOT EXISTS (SELECT 1 FROM listed l WHERE l.run = a.run
                      AND l.blake3 = a.body->>'digest')
),
expected AS (
    SELECT run, path, pulled, digest, is_checkpoint FROM listed_status
    UNION ALL
    SELECT run, path, false, NULL, regexp_matches(lower(path), '\.(pth|pt|ckpt|bin|safetensors)$')
    FROM roster_missing
    UNION ALL
    SELECT a.run, a.path,
           EXISTS (SELECT 1 FROM pulled_ok p WHERE p.digest = a.digest), a.digest, a.is_checkpoint
    FROM announced a
),
judged AS (
    SELECT x.*, coalesce(v.ok, false) AS verified
    FROM expected x LEFT JOIN latest_verification v ON v.digest = x.digest
),
runs AS (
    SELECT run FROM listing UNION SELECT run FROM announced
)
SELECT
    r.run,
    l.listing_id,
    l.listed_at,
    count(j.path) AS expected,
    count(j.path) FILTER (WHERE j.pulled) AS pulled,
    count(j.path) FILTER (WHERE j.is_checkpoint) AS checkpoints,
    count(j.path) FILTER (WHERE j.is_checkpoint AND j.verified) AS verified,
    coalesce(list_sort(list(j.path) FILTER (WHERE NOT j.pulled
                                            OR (j.is_checkpoint AND NOT j.verified))),
             CAST([] AS VARCHAR[])) AS missing,
    CASE
        WHEN l.listing_id IS NULL THEN 'not pulled'
        WHEN count(j.path) > 0 AND count(j.path) FILTER (WHERE NOT j.pulled
                                   OR (j.is_checkpoint AND NOT j.verified)) = 0 THEN 'complete'
        ELSE 'gaps'
    END AS verdict
FROM runs r
LEFT JOIN listing l USING (run)
LEFT JOIN judged j USING (run)
GROUP BY r.run, l.listing_id, l.listed_at
ORDER BY r.run;
