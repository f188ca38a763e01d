-- Sweeps: one request naming a base LaunchRequest and N runs, each run a job of its own
-- (docs/api.md, "Sweeps"). A sweep is journaled with all its jobs in one transaction; it is
-- idempotent by sweep_id over request_sha256, the hash of the canonical sweep without the runs'
-- credentials. Each of its jobs records the sweep and its place in it (0 to run_count - 1), the
-- order in which its runs may later be the tasks of one Slurm job array. Jobs submitted alone
-- have neither.
CREATE TABLE sweeps (
  sweep_id       TEXT PRIMARY KEY,
  request_sha256 TEXT NOT NULL,
  run_count      INTEGER NOT NULL CHECK (run_count >= 1),
  max_running    INTEGER CHECK (max_running >= 1 AND max_running <= run_count),
  platform_user  TEXT,
  submitted_by   TEXT,
  created_at     TEXT NOT NULL
) STRICT;

ALTER TABLE jobs ADD COLUMN sweep_id TEXT REFERENCES sweeps (sweep_id);
ALTER TABLE jobs ADD COLUMN sweep_index INTEGER CHECK (sweep_index >= 0);
CREATE UNIQUE INDEX jobs_by_sweep ON jobs (sweep_id, sweep_index) WHERE sweep_id IS NOT NULL;
