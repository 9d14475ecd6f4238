-- artifacts: one row per stored object any event names as an artifact, with the runs that
-- referenced it. Sources: artifact.recorded (emit --attach, the Python API), checkpoint.saved,
-- capsule.sealed, artifact.pulled (the local digest of a pulled file).
--   first_ts / last_ts  when it was first and last referenced
--   paths               every path it was recorded under (sorted, distinct)
--   runs                every run that referenced it (sorted, distinct)
--   kinds               which kinds of event referenced it
CREATE OR REPLACE VIEW artifacts AS
SELECT
    body->>'digest' AS digest,
    max(TRY_CAST(body->>'size' AS BIGINT)) AS size,
    coalesce(max(body->>'type') FILTER (WHERE kind = 'artifact.recorded'), 'file') AS type,
    min(ts) AS first_ts,
    max(ts) AS last_ts,
    list_sort(list_distinct(list(body->>'path'))) AS paths,
    list_sort(list_distinct(list(run) FILTER (WHERE run IS NOT NULL))) AS runs,
    list_sort(list_distinct(list(kind))) AS kinds,
    count(*) AS refs
FROM events
WHERE kind IN ('artifact.recorded', 'checkpoint.saved', 'capsule.sealed', 'artifact.pulled')
  AND body->>'digest' IS NOT NULL
GROUP BY body->>'digest';
