-- Each Slurm token the daemon minted from the cluster's key (TUNEPLANE_SLURM_JWT_KEY_FILE): for
-- whom, when, until when, and for what: `service` (the service identity's own calls) or
-- `job_user` (the calls about a job, in per-user mode, as its user). Never the token. A token is
-- minted again for the same user once 80 % of its lifespan has passed, and only while calls
-- for that user are made. Append-only, as the events are.
CREATE TABLE token_mints (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  at         TEXT NOT NULL,
  user       TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  purpose    TEXT NOT NULL CHECK (purpose IN ('service', 'job_user'))
) STRICT;

CREATE INDEX token_mints_by_user ON token_mints (user, seq);

CREATE TRIGGER token_mints_no_update BEFORE UPDATE ON token_mints
BEGIN
  SELECT RAISE(ABORT, 'token_mints are append-only: UPDATE is not allowed');
END;

CREATE TRIGGER token_mints_no_delete BEFORE DELETE ON token_mints
BEGIN
  SELECT RAISE(ABORT, 'token_mints are append-only: DELETE is not allowed');
END;
