-- Whose each job is, fixed when it was accepted: the platform user its request names (NULL when
-- it names none), and in per-user mode the Unix user it runs as and the account it is charged
-- when its request names none, the first of its user's (NULL in one-user mode: the deployment's
-- job user and TUNEPLANE_SLURM_ACCOUNT). Jobs accepted before these columns get the user their
-- request names.
-- The index serves the count of a user's live jobs (max_live_jobs) and /metrics.
ALTER TABLE jobs ADD COLUMN platform_user TEXT;
ALTER TABLE jobs ADD COLUMN unix_user TEXT;
ALTER TABLE jobs ADD COLUMN default_account TEXT;
UPDATE jobs SET platform_user = json_extract(request_json, '$.user')
WHERE json_type(request_json, '$.user') = 'text';
CREATE INDEX jobs_by_user ON jobs (platform_user, phase) WHERE platform_user IS NOT NULL;
