-- events: one row per event in every segment of every writer (open JSONL and sealed Parquet).
-- Envelope columns are typed; `body` is the kind's typed body as JSON (see `labledger schema KIND`).
-- `recorded` is set only for backfilled events (`emit --at`): when the event was actually written.
-- A line the JSON reader cannot read arrives as a row without its required envelope fields (or
-- with a body that is not JSON) and is left out here; `labledger sql` and `log` warn about it,
-- naming segment and line.
CREATE OR REPLACE VIEW events AS
SELECT
    id,
    v,
    seq,
    prev,
    CAST(ts AS TIMESTAMPTZ) AS ts,
    writer,
    actor,
    kind,
    run,
    instance,
    CAST(recorded AS TIMESTAMPTZ) AS recorded,
    -- a record without a body has the empty one (as the Python reader decodes it)
    coalesce(body_json, CAST('{}' AS JSON)) AS body
FROM (SELECT *, TRY_CAST(body AS JSON) AS body_json FROM raw_events)
WHERE id IS NOT NULL AND v IS NOT NULL AND seq IS NOT NULL AND ts IS NOT NULL
  AND writer IS NOT NULL AND actor IS NOT NULL AND kind IS NOT NULL
  -- a body the JSON reader hands over as text that is not JSON (a damaged record whose body is
  -- a string) is unreadable too: one such row must not make every query fail
  AND (body IS NULL OR body_json IS NOT NULL);
