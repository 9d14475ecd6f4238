-- events: one row per event in every segment of every writer (open JSONL and sealed Parquet).
-- Envelope columns are typed; `body` is the kind's typed body as JSON (see `labledger schema KIND`).
-- `recorded` is set only for backfilled events (`emit --at`): when the event was actually written.
-- A line the JSON reader cannot read arrives as a row without its required envelope fields and is
-- left out here; `labledger sql` and `log` warn about it, naming segment and line.
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
    CAST(body AS JSON) AS body
FROM raw_events
WHERE id IS NOT NULL AND v IS NOT NULL AND seq IS NOT NULL AND ts IS NOT NULL
  AND writer IS NOT NULL AND actor IS NOT NULL AND kind IS NOT NULL;
