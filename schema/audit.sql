-- Audit views over the journal. They hold no data of their own: the journal drops and
-- recreates them whenever this file changes, so they always match the binary.

-- Everything that happened to each job, in order: the request hash, every attempt with its
-- submit token, receipts with Slurm ids and SLUIDs, state changes with their reasons, and
-- cleanup steps.
CREATE VIEW audit_timeline AS
SELECT e.seq                                   AS seq,
       e.at                                    AS at,
       e.job_id                                AS job_id,
       j.platform_user                         AS user,
       j.unix_user                             AS unix_user,
       j.request_sha256                        AS request_sha256,
       e.attempt                               AS attempt,
       a.submit_token                          AS submit_token,
       e.kind                                  AS kind,
       e.from_state                            AS from_state,
       e.to_state                              AS to_state,
       json_extract(e.detail, '$.reason')      AS reason,
       coalesce(json_extract(e.detail, '$.slurm_job_id'), a.slurm_job_id) AS slurm_job_id,
       coalesce(json_extract(e.detail, '$.sluid'), a.sluid)               AS sluid,
       e.detail                                AS detail
FROM events e
JOIN jobs j ON j.job_id = e.job_id
LEFT JOIN attempts a ON a.job_id = e.job_id AND a.number = e.attempt;

-- Submissions whose response was lost: nothing more is sent for these jobs until the
-- allocation is found or an operator resolves it. The *_elapsed_s columns: how long after the
-- intent the last search and the last complete one ran, as `serve` measured it (the figure
-- `resolve --absent` goes by).
CREATE VIEW audit_blocked AS
SELECT a.job_id        AS job_id,
       a.number        AS attempt,
       a.submit_token  AS submit_token,
       a.intent_at     AS intent_at,
       a.updated_at    AS blocked_since,
       a.attempt_dir   AS attempt_dir,
       a.searched_at   AS last_search_at,
       a.outcome_reason AS reason,
       a.complete_search_at AS last_complete_search_at,
       a.search_report AS search_report,
       a.search_elapsed_s          AS last_search_elapsed_s,
       a.complete_search_elapsed_s AS last_complete_search_elapsed_s
FROM attempts a
WHERE a.state = 'submit_unknown';

-- Attempts that ended but still hold something: an epilog still running, staging to remove,
-- logs to seal. Until cleanup is closed the platform sees resources_held = true.
CREATE VIEW audit_cleanup_backlog AS
SELECT a.job_id        AS job_id,
       a.number        AS attempt,
       a.state         AS state,
       a.cleanup       AS cleanup,
       a.slurm_job_id  AS slurm_job_id,
       a.slurm_state   AS slurm_state,
       coalesce(a.cleanup_at, a.updated_at) AS since
FROM attempts a
WHERE a.state IN ('succeeded', 'failed', 'cancelled', 'lost', 'rejected', 'abandoned')
  AND a.cleanup <> 'closed';
