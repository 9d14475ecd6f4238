-- instances: one row per instance id any event names, derived from events only.
--   platform        the profile of its latest instance.rented (NULL: never rented through labledger)
--   state           'unrecorded' (never rented), 'released' (released after its latest rent),
--                   else 'stopped' or 'running' from its latest stop/start/rent
--   rented_at       its latest instance.rented; released_at its latest release after that
--   host, price_per_hour, currency, spot   from its latest instance.rented
--   stops, starts   how many instance.stopped / instance.started events it has
--   runs            every run id of an event tagged with the instance (sorted, distinct)
-- Hours on the meter, cost, what still bills and danger clocks need interval arithmetic and the
-- rent's profile snapshot: `labledger instances` computes them (labledger.reconcile.instances).
CREATE OR REPLACE VIEW instances AS
WITH lifecycle AS (
    SELECT
        instance,
        max(ts) FILTER (WHERE kind = 'instance.rented') AS rented_at,
        max(ts) FILTER (WHERE kind = 'instance.released') AS last_release,
        arg_max(kind, (ts, writer, seq)) FILTER (WHERE kind <> 'instance.released') AS last_kind,
        arg_max(body, (ts, writer, seq)) FILTER (WHERE kind = 'instance.rented') AS rent_body,
        count(*) FILTER (WHERE kind = 'instance.stopped') AS stops,
        count(*) FILTER (WHERE kind = 'instance.started') AS starts
    FROM events
    WHERE instance IS NOT NULL
      AND kind IN ('instance.rented', 'instance.stopped', 'instance.started', 'instance.released')
    GROUP BY instance
),
totals AS (
    SELECT
        instance,
        count(*) AS events,
        min(ts) AS first_ts,
        max(ts) AS last_ts,
        coalesce(list_sort(list_distinct(list(run) FILTER (WHERE run IS NOT NULL))),
                 CAST([] AS VARCHAR[])) AS runs
    FROM events
    WHERE instance IS NOT NULL
    GROUP BY instance
)
SELECT
    t.instance,
    l.rent_body->>'profile' AS platform,
    CASE
        WHEN l.rented_at IS NULL THEN 'unrecorded'
        WHEN l.last_release >= l.rented_at THEN 'released'
        WHEN l.last_kind = 'instance.stopped' THEN 'stopped'
        ELSE 'running'
    END AS state,
    l.rented_at,
    CASE WHEN l.last_release >= l.rented_at THEN l.last_release END AS released_at,
    l.rent_body->>'host' AS host,
    TRY_CAST(l.rent_body->>'price_per_hour' AS DOUBLE) AS price_per_hour,
    l.rent_body->>'currency' AS currency,
    coalesce(TRY_CAST(l.rent_body->>'spot' AS BOOLEAN), false) AS spot,
    coalesce(l.stops, 0) AS stops,
    coalesce(l.starts, 0) AS starts,
    t.runs,
    t.events,
    t.first_ts,
    t.last_ts
FROM totals t
LEFT JOIN lifecycle l USING (instance);
