-- verifications: one row per checkpoint.verified event (a safe load of the bytes of `digest`),
-- oldest first. The latest row for a digest is what counts: a later failure undoes an earlier ok.
--   allow_pickle  true when unsafe unpickling was explicitly allowed (omitted from bodies if false)
--   resume_state  true when the file was checked as a trainer's resume state (optimizer,
--                 scheduler, scaler, RNG, training arguments), not as weights
--   refused       weights_only's refusal of a resume-state file accepted on its whole archive
CREATE OR REPLACE VIEW verifications AS
SELECT
    run,
    instance,
    body->>'path' AS path,
    body->>'digest' AS digest,
    TRY_CAST(body->>'ok' AS BOOLEAN) AS ok,
    body->>'error' AS error,
    TRY_CAST(body->>'tensors' AS BIGINT) AS tensors,
    body->>'loader' AS loader,
    coalesce(TRY_CAST(body->>'allow_pickle' AS BOOLEAN), false) AS allow_pickle,
    coalesce(TRY_CAST(body->>'resume_state' AS BOOLEAN), false) AS resume_state,
    body->>'refused' AS refused,
    ts,
    writer,
    seq,
    id
FROM events
WHERE kind = 'checkpoint.verified';
