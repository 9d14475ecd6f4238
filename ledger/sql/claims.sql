-- claims: the claims in force, one row per claim id: its latest claim.declared, unless a later
-- claim.retracted removed it (ledger time: ts, writer, seq). The same projection as
-- labledger.reconcile.claim_model.current_claims, which `claim list` and EVIDENCE.json use.
--   value          read from the bytes of source_digest by selector at declaration
--   split          the split the claim states; evaluated_split: the one the result says
--   declarations   how many times the id was declared (superseded and retracted ones included)
CREATE OR REPLACE VIEW claims AS
WITH history AS (
    SELECT body->>'claim' AS claim, kind, id, ts, writer, seq, run, body
    FROM events
    WHERE kind IN ('claim.declared', 'claim.retracted')
),
last_word AS (
    SELECT claim,
           arg_max(kind, (ts, writer, seq)) AS kind,
           count(*) FILTER (WHERE kind = 'claim.declared') AS declarations
    FROM history
    GROUP BY claim
),
declared AS (
    SELECT claim,
           arg_max(id, (ts, writer, seq)) AS event_id,
           arg_max(ts, (ts, writer, seq)) AS declared_at,
           arg_max(run, (ts, writer, seq)) AS run,
           arg_max(body, (ts, writer, seq)) AS body
    FROM history
    WHERE kind = 'claim.declared'
    GROUP BY claim
)
SELECT
    d.claim,
    d.run,
    d.body->>'metric' AS metric,
    CAST(d.body->>'value' AS DOUBLE) AS value,
    d.body->>'direction' AS direction,
    d.body->>'unit' AS unit,
    d.body->>'selector' AS selector,
    d.body->>'source_path' AS source_path,
    d.body->>'source_digest' AS source_digest,
    d.body->>'source_event' AS source_event,
    d.body->>'split' AS split,
    d.body->>'evaluated_split' AS evaluated_split,
    TRY_CAST(d.body->>'n' AS BIGINT) AS n,
    d.body->>'statement' AS statement,
    d.event_id,
    d.declared_at,
    l.declarations
FROM declared d
JOIN last_word l USING (claim)
WHERE l.kind = 'claim.declared'
ORDER BY d.claim;
