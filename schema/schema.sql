-- The journal's schema after every migration in migrations/, as SQLite stores it.
-- Generated; tests/journal/schema_test.cc checks it. To regenerate after adding a migration:
--   TP_UPDATE_GOLDEN=1 build/dev/tests/journal/journal_tests --gtest_filter='SchemaTest.*'

CREATE TABLE artifact_hashes (
  path       TEXT PRIMARY KEY,
  size       INTEGER NOT NULL,
  mtime_ns   INTEGER NOT NULL,
  ctime_ns   INTEGER NOT NULL,
  inode      INTEGER NOT NULL,
  sha256     TEXT NOT NULL,
  checked_at TEXT NOT NULL
) STRICT;

CREATE TABLE attempts (
  job_id          TEXT NOT NULL REFERENCES jobs (job_id),
  number          INTEGER NOT NULL CHECK (number >= 1),
  submit_token    TEXT NOT NULL UNIQUE,
  state           TEXT NOT NULL CHECK (state IN ('preparing', 'prepared', 'submitting', 'submit_unknown',
                    'submitted', 'pending', 'running', 'succeeded', 'failed', 'cancelled', 'lost', 'rejected',
                    'abandoned')),
  input_sha256    TEXT NOT NULL,     -- hash of everything the attempt is rendered from
  attempt_dir     TEXT,
  script_sha256   TEXT,
  env_sha256      TEXT,
  manifest_sha256 TEXT,
  intent_at       TEXT,              -- when `submitting` was committed: the start of any search window
  slurm_job_id    INTEGER,           -- numeric id from the receipt (the het leader for a hetjob)
  sluid           TEXT,              -- the leader's SLUID where the server has them
  het_job_id      INTEGER,
  components      TEXT,              -- JSON: per component {offset, job_id, sluid, state, stdout, stderr}
  server_release  TEXT,              -- Slurm release from `meta`, which decides the ids operations use
  dialect         TEXT,              -- REST version used, e.g. v0.0.45
  receipt         TEXT,              -- JSON: what the submit answered (job_id, warnings, errors)
  slurm_state     TEXT,              -- last observed, e.g. COMPLETED+COMPLETING
  slurm_reason    TEXT,
  exit_code       INTEGER,
  exit_signal     INTEGER,
  failure_phase   TEXT,              -- from exit.json: verify, container or program
  outcome_reason  TEXT,              -- why the attempt ended as it did, in words
  found_by        TEXT CHECK (found_by IN ('receipt', 'evidence', 'search', 'operator')),
  cleanup         TEXT NOT NULL DEFAULT 'none' CHECK (cleanup IN ('none', 'epilog_pending', 'staging_pending',
                    'sealing', 'closed')),
  logs_sha256     TEXT,              -- JSON: sealed scheduler logs and their hashes
  version         INTEGER NOT NULL DEFAULT 1,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL, submit_mode TEXT CHECK (submit_mode IN ('held', 'direct')), identified_at TEXT, released_at TEXT, searched_at TEXT, complete_search_at TEXT, search_report TEXT, observed_at TEXT, signalled_at TEXT, cleanup_at TEXT, search_elapsed_s INTEGER CHECK (search_elapsed_s >= 0), complete_search_elapsed_s INTEGER CHECK (complete_search_elapsed_s >= 0), tag_name TEXT, tag_workdir TEXT, usage TEXT,
  PRIMARY KEY (job_id, number)
) STRICT;

CREATE TABLE control_events (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  at      TEXT NOT NULL,
  name    TEXT NOT NULL,
  action  TEXT NOT NULL CHECK (action IN ('set', 'cleared')),
  by_user TEXT NOT NULL,
  reason  TEXT NOT NULL
) STRICT;

CREATE TABLE controls (
  name    TEXT PRIMARY KEY CHECK (name IN ('paused', 'safe_mode')),
  reason  TEXT NOT NULL,
  set_by  TEXT NOT NULL,
  set_at  TEXT NOT NULL
) STRICT;

CREATE TABLE events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  at         TEXT NOT NULL,
  job_id     TEXT NOT NULL REFERENCES jobs (job_id),
  attempt    INTEGER,
  kind       TEXT NOT NULL,          -- job.created, attempt.created, attempt.state, receipt, cleanup, desire, ...
  from_state TEXT,
  to_state   TEXT,
  detail     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail))
) STRICT;

CREATE TABLE jobs (
  job_id          TEXT PRIMARY KEY,
  request_json    TEXT NOT NULL,     -- canonical LaunchRequest without credentials
  request_sha256  TEXT NOT NULL,     -- idempotency hash over request_json
  credential_path TEXT,              -- the 0400 ingest credential on the shared filesystem
  credential_hmac TEXT,              -- HMAC-SHA-256 of the credential under the local key
  max_attempts    INTEGER NOT NULL DEFAULT 1 CHECK (max_attempts >= 1),
  desire          TEXT NOT NULL DEFAULT 'run' CHECK (desire IN ('run', 'cancel')),
  desire_reason   TEXT,
  phase           TEXT NOT NULL DEFAULT 'queued' CHECK (phase IN ('queued', 'submitting', 'submit_unconfirmed',
                    'pending', 'running', 'succeeded', 'failed', 'cancelled', 'lost')),
  current_attempt INTEGER,           -- number of the newest attempt, NULL before the first
  version         INTEGER NOT NULL DEFAULT 1,  -- compare-and-set guard for desires
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
, cancel_grace_seconds INTEGER CHECK (cancel_grace_seconds >= 0), platform_user TEXT, unix_user TEXT, default_account TEXT, sweep_id TEXT REFERENCES sweeps (sweep_id), sweep_index INTEGER CHECK (sweep_index >= 0)) STRICT;

CREATE TABLE journal_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE orphans (
  slurm_job_id INTEGER NOT NULL,
  sluid        TEXT NOT NULL DEFAULT '',
  name         TEXT NOT NULL,
  comment      TEXT,
  working_dir  TEXT,
  slurm_state  TEXT,
  first_seen   TEXT NOT NULL,
  last_seen    TEXT NOT NULL,
  PRIMARY KEY (slurm_job_id, sluid)
) STRICT;

CREATE TABLE schema_migrations ( number INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT;

CREATE TABLE sweeps (
  sweep_id       TEXT PRIMARY KEY,
  request_sha256 TEXT NOT NULL,
  run_count      INTEGER NOT NULL CHECK (run_count >= 1),
  max_running    INTEGER CHECK (max_running >= 1 AND max_running <= run_count),
  platform_user  TEXT,
  submitted_by   TEXT,
  created_at     TEXT NOT NULL
) STRICT;

CREATE TABLE token_mints (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  at         TEXT NOT NULL,
  user       TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  purpose    TEXT NOT NULL CHECK (purpose IN ('service', 'job_user'))
) STRICT;

CREATE INDEX attempts_by_cleanup ON attempts (cleanup) WHERE cleanup <> 'closed';

CREATE INDEX attempts_by_slurm_job_id ON attempts (slurm_job_id) WHERE slurm_job_id IS NOT NULL;

CREATE INDEX attempts_by_state ON attempts (state);

CREATE UNIQUE INDEX attempts_one_live_per_job ON attempts (job_id)
  WHERE state IN ('preparing', 'prepared', 'submitting', 'submit_unknown', 'submitted', 'pending', 'running');

CREATE INDEX events_by_job ON events (job_id, seq);

CREATE UNIQUE INDEX jobs_by_sweep ON jobs (sweep_id, sweep_index) WHERE sweep_id IS NOT NULL;

CREATE INDEX jobs_by_user ON jobs (platform_user, phase) WHERE platform_user IS NOT NULL;

CREATE INDEX token_mints_by_user ON token_mints (user, seq);

CREATE TRIGGER attempts_cleanup_after_end BEFORE UPDATE OF state, cleanup ON attempts
WHEN NEW.cleanup <> 'none'
  AND NEW.state IN ('preparing', 'prepared', 'submitting', 'submit_unknown', 'submitted', 'pending', 'running')
BEGIN
  SELECT RAISE(ABORT, 'attempts: cleanup starts only when an attempt has ended');
END;

CREATE TRIGGER attempts_insert_after_cleanup BEFORE INSERT ON attempts
WHEN EXISTS (SELECT 1 FROM attempts WHERE job_id = NEW.job_id AND cleanup <> 'closed')
BEGIN
  SELECT RAISE(ABORT, 'attempts: a new attempt only after the previous one has ended and its cleanup is closed');
END;

CREATE TRIGGER attempts_insert_in_order BEFORE INSERT ON attempts
WHEN NEW.state <> 'preparing'
  OR NEW.number <> 1 + coalesce((SELECT max(number) FROM attempts WHERE job_id = NEW.job_id), 0)
BEGIN
  SELECT RAISE(ABORT, 'attempts: a new attempt starts in preparing and is numbered right after the job''s last one');
END;

CREATE TRIGGER attempts_insert_within_max BEFORE INSERT ON attempts
WHEN NEW.number > (SELECT max_attempts FROM jobs WHERE job_id = NEW.job_id)
BEGIN
  SELECT RAISE(ABORT, 'attempts: a job takes no more attempts than its max_attempts');
END;

CREATE TRIGGER attempts_keep_slurm_job_id BEFORE UPDATE ON attempts
WHEN NEW.slurm_job_id IS NULL
  AND (NEW.state IN ('submitted', 'pending', 'running', 'succeeded', 'lost')
       OR OLD.state IN ('submitted', 'pending', 'running')
       OR OLD.slurm_job_id IS NOT NULL)
BEGIN
  SELECT RAISE(ABORT, 'attempts: every state from submitted on needs the attempt''s slurm_job_id');
END;

CREATE TRIGGER control_events_no_delete BEFORE DELETE ON control_events
BEGIN
  SELECT RAISE(ABORT, 'control_events are append-only: DELETE is not allowed');
END;

CREATE TRIGGER control_events_no_update BEFORE UPDATE ON control_events
BEGIN
  SELECT RAISE(ABORT, 'control_events are append-only: UPDATE is not allowed');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
  SELECT RAISE(ABORT, 'events are append-only: DELETE is not allowed');
END;

CREATE TRIGGER events_no_replace BEFORE INSERT ON events
WHEN NEW.seq IS NOT NULL AND EXISTS (SELECT 1 FROM events WHERE seq = NEW.seq)
BEGIN
  SELECT RAISE(ABORT, 'events are append-only: an existing event cannot be replaced');
END;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
  SELECT RAISE(ABORT, 'events are append-only: UPDATE is not allowed');
END;

CREATE TRIGGER jobs_max_attempts_covers_attempts BEFORE UPDATE OF max_attempts ON jobs
WHEN NEW.max_attempts < (SELECT max(number) FROM attempts WHERE job_id = NEW.job_id)
BEGIN
  SELECT RAISE(ABORT, 'jobs: max_attempts cannot drop below the attempts already made');
END;

CREATE TRIGGER token_mints_no_delete BEFORE DELETE ON token_mints
BEGIN
  SELECT RAISE(ABORT, 'token_mints are append-only: DELETE is not allowed');
END;

CREATE TRIGGER token_mints_no_update BEFORE UPDATE ON token_mints
BEGIN
  SELECT RAISE(ABORT, 'token_mints are append-only: UPDATE is not allowed');
END;

