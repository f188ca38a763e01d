-- The attempts' invariants, held by the schema as well as by the journal's code, so that no
-- other writer (a script, the sqlite3 shell, a later component) can break them either. The
-- code refuses first with a message naming the job and the fix; these are the backstop.

-- At most one live (not final) attempt per job.
CREATE UNIQUE INDEX attempts_one_live_per_job ON attempts (job_id)
  WHERE state IN ('preparing', 'prepared', 'submitting', 'submit_unknown', 'submitted', 'pending', 'running');

-- A new attempt starts in preparing, numbered right after the job's last one.
CREATE TRIGGER attempts_insert_in_order BEFORE INSERT ON attempts
WHEN NEW.state <> 'preparing'
  OR NEW.number <> 1 + coalesce((SELECT max(number) FROM attempts WHERE job_id = NEW.job_id), 0)
BEGIN
  SELECT RAISE(ABORT, 'attempts: a new attempt starts in preparing and is numbered right after the job''s last one');
END;

-- A new attempt only after every earlier one has ended and its cleanup is closed.
CREATE TRIGGER attempts_insert_after_cleanup BEFORE INSERT ON attempts
WHEN EXISTS (SELECT 1 FROM attempts WHERE job_id = NEW.job_id AND cleanup <> 'closed')
BEGIN
  SELECT RAISE(ABORT, 'attempts: a new attempt only after the previous one has ended and its cleanup is closed');
END;

-- Never more attempts than the job's max_attempts (spec.retry.max_attempts).
CREATE TRIGGER attempts_insert_within_max BEFORE INSERT ON attempts
WHEN NEW.number > (SELECT max_attempts FROM jobs WHERE job_id = NEW.job_id)
BEGIN
  SELECT RAISE(ABORT, 'attempts: a job takes no more attempts than its max_attempts');
END;

CREATE TRIGGER jobs_max_attempts_covers_attempts BEFORE UPDATE OF max_attempts ON jobs
WHEN NEW.max_attempts < (SELECT max(number) FROM attempts WHERE job_id = NEW.job_id)
BEGIN
  SELECT RAISE(ABORT, 'jobs: max_attempts cannot drop below the attempts already made');
END;

-- Cleanup runs only once an attempt has ended.
CREATE TRIGGER attempts_cleanup_after_end BEFORE UPDATE OF state, cleanup ON attempts
WHEN NEW.cleanup <> 'none'
  AND NEW.state IN ('preparing', 'prepared', 'submitting', 'submit_unknown', 'submitted', 'pending', 'running')
BEGIN
  SELECT RAISE(ABORT, 'attempts: cleanup starts only when an attempt has ended');
END;

-- From submitted on an attempt names its allocation: its Slurm job id is never missing and,
-- once journaled, never cleared. (failed and cancelled are also reached before any submit.)
CREATE TRIGGER attempts_keep_slurm_job_id BEFORE UPDATE ON attempts
WHEN NEW.slurm_job_id IS NULL
  AND (NEW.state IN ('submitted', 'pending', 'running', 'succeeded', 'lost')
       OR OLD.state IN ('submitted', 'pending', 'running')
       OR OLD.slurm_job_id IS NOT NULL)
BEGIN
  SELECT RAISE(ABORT, 'attempts: every state from submitted on needs the attempt''s slurm_job_id');
END;
