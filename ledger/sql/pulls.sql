-- pulls: one row per artifact.pulled event, oldest first.
--   ok            the pull's own verdict (transfer finished, hashes compared)
--   digest_match  the SHA-256 computed on the box equals the one computed locally
--   digest        the local BLAKE3 object digest in the content store
-- A view cannot read bytes: whether the object still verifies is `labledger verify-pull`'s job.
CREATE OR REPLACE VIEW pulls AS
SELECT
    run,
    instance,
    body->>'path' AS path,
    TRY_CAST(body->>'ok' AS BOOLEAN) AS ok,
    TRY_CAST(body->>'size' AS BIGINT) AS size,
    body->>'remote_sha256' AS remote_sha256,
    body->>'local_sha256' AS local_sha256,
    coalesce(body->>'remote_sha256' = body->>'local_sha256', false) AS digest_match,
    body->>'digest' AS digest,
    body->>'error' AS error,
    ts,
    writer,
    seq,
    id
FROM events
WHERE kind = 'artifact.pulled';
