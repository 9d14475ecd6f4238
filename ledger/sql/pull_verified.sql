-- pull_verified: one row per run that has a pull listing or announced checkpoints/artifacts,
-- as far as the ledger alone can tell.
--   listing     the run's LATEST FULL pull.listed (one without `only`); a listing restricted by
--               `pull --only` (its `only` globs in the body) is partial and never stands for the
--               whole box
--   expected    files (type file) of the latest full listing, updated by the partial listings
--               recorded after it (a file one shows is expected with the digests it shows; a
--               file it does not show stays expected: partial listings add, never remove) +
--               roster entries missing on the box (a partial listing's `missing` only inside
--               its globs, matched with GLOB) and not listed since + the latest
--               checkpoint.saved / artifact.recorded of each path of the run (role 'latest'
--               excluded) whose digest is not listed. With no full listing, the files of the
--               partial ones.
--   pulled      listed files with an ok artifact.pulled whose remote SHA-256 equals the listing's
--               and the local one (announced artifacts: an ok pull of the same digest), and
--               whose listing entry names no `writers` (a box process held it open for writing
--               when it was hashed: the copy may be a partial file)
--   checkpoints listed files with a checkpoint suffix plus announced checkpoint.saved
--   verified    of those, the ones whose latest checkpoint.verified for the digest is ok
--   missing     the expected paths not pulled with matching digests, sorted
--   verdict     'complete' (a full listing, every expected file pulled and every checkpoint
--               verified), 'gaps' (anything less, including only partial listings; listing_id
--               is then NULL), or 'not pulled' (no listing)
-- This is labledger.reconcile.pull_verified's rule (verify-pull), which counts the run's
-- listings from any source. The teardown gate of instance I applies one more: only listings
-- taken from I (the event's instance) count there.
-- The view cannot see bytes: `labledger verify-pull RUN` re-hashes the local objects and is the
-- authority (labledger.reconcile.pull_verified). A 'complete' row is necessary, not sufficient;
-- and an announced object whose bytes are already in the local store without a pull (attached
-- here) shows as a gap in the view while the gate, which looks at the store, accepts it.
CREATE OR REPLACE VIEW pull_verified AS
WITH run_listing AS (
    SELECT run, id, ts, writer, seq, body,
           coalesce(json_array_length(body->'only'), 0) > 0 AS partial
    FROM events
    WHERE kind = 'pull.listed' AND run IS NOT NULL
),
listing AS (
    -- The latest full listing of each run (its id and time NULL when there is none).
    SELECT run,
           arg_max(id, (ts, writer, seq)) FILTER (WHERE NOT partial) AS listing_id,
           arg_max(body, (ts, writer, seq)) FILTER (WHERE NOT partial) AS body,
           max(ts) FILTER (WHERE NOT partial) AS listed_at,
           max((ts, writer, seq)) FILTER (WHERE NOT partial) AS listed_key
    FROM run_listing
    GROUP BY run
),
counted AS (
    -- The full listing and the partial ones after it (every partial one when none is full).
    SELECT r.run, r.id, r.ts, r.writer, r.seq, r.body, r.partial
    FROM run_listing r JOIN listing l USING (run)
    WHERE r.id = l.listing_id OR (r.partial AND (l.listed_key IS NULL
                                                  OR (r.ts, r.writer, r.seq) > l.listed_key))
),
listed_any AS (
    SELECT run, ts, writer, seq, e.path AS path, e.sha256 AS sha256, e.blake3 AS blake3,
           coalesce(json_array_length(e.writers), 0) > 0 AS writing
    FROM (SELECT run, ts, writer, seq, unnest(from_json(body->'entries',
              '[{"path": "VARCHAR", "type": "VARCHAR", "sha256": "VARCHAR", "blake3": "VARCHAR",
                 "writers": "JSON"}]'
          )) AS e FROM counted)
    WHERE coalesce(e.type, 'file') = 'file'
),
listed AS (
    -- Per path, the entry of the latest counted listing that shows it.
    SELECT run, path, sha256, blake3, writing
    FROM (SELECT *, row_number() OVER (PARTITION BY run, path
                                       ORDER BY ts DESC, writer DESC, seq DESC) AS nth
          FROM listed_any)
    WHERE nth = 1
),
roster_missing AS (
    SELECT DISTINCT m.run, m.path
    FROM (SELECT run, partial, body,
                 unnest(from_json(body->'missing', '["VARCHAR"]')) AS path FROM counted) m
    WHERE (NOT m.partial
           OR EXISTS (SELECT 1 FROM (SELECT unnest(from_json(m.body->'only', '["VARCHAR"]'))
                                     AS glob) AS o WHERE m.path GLOB o.glob))
      AND NOT EXISTS (SELECT 1 FROM listed l WHERE l.run = m.run AND l.path = m.path)
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
           bool_or(p.path IS NOT NULL AND (l.blake3 IS NULL OR p.digest = l.blake3))
               AND NOT l.writing AS pulled,
           any_value(p.digest) FILTER (WHERE p.path IS NOT NULL) AS digest,
           regexp_matches(lower(l.path), '\.(pth|pt|ckpt|bin|safetensors)$') AS is_checkpoint
    FROM listed l
    LEFT JOIN pulled_ok p ON p.run = l.run AND p.path = l.path AND p.sha256 = l.sha256
    GROUP BY l.run, l.path, l.blake3, l.writing
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
    SELECT run FROM run_listing UNION SELECT run FROM announced
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
        WHEN l.run IS NULL THEN 'not pulled'
        WHEN l.listing_id IS NULL THEN 'gaps'
        WHEN count(j.path) > 0 AND count(j.path) FILTER (WHERE NOT j.pulled
                                   OR (j.is_checkpoint AND NOT j.verified)) = 0 THEN 'complete'
        ELSE 'gaps'
    END AS verdict
FROM runs r
LEFT JOIN listing l USING (run)
LEFT JOIN judged j USING (run)
GROUP BY r.run, l.run, l.listing_id, l.listed_at
ORDER BY r.run;
