-- What the reconciler needs beyond the first schema: held submits, the operator's controls
-- (pause, safe mode) with their history, and Slurm jobs of this instance the journal does not
-- know (orphans).

-- How the attempt was submitted: 'held' (submitted with hold, released only after its
-- identity check) or 'direct'. Set when `submitting` is committed.
ALTER TABLE attempts ADD COLUMN submit_mode TEXT CHECK (submit_mode IN ('held', 'direct'));
-- When the job was read back by id and every component carried the tag (identify).
ALTER TABLE attempts ADD COLUMN identified_at TEXT;
-- When a held job was released (POST job/{id} {"hold": false} answered).
ALTER TABLE attempts ADD COLUMN released_at TEXT;
-- While blocked after a lost answer: the last search by tag, the last one in which every
-- source answered (only that one can support `resolve --absent`), and its report per source.
ALTER TABLE attempts ADD COLUMN searched_at TEXT;
ALTER TABLE attempts ADD COLUMN complete_search_at TEXT;
ALTER TABLE attempts ADD COLUMN search_report TEXT;

-- Operator controls that are on while their row exists: `paused` (nothing new is submitted)
-- and `safe_mode` (the journal was restored from a backup and may be behind Slurm).
CREATE TABLE controls (
  name    TEXT PRIMARY KEY CHECK (name IN ('paused', 'safe_mode')),
  reason  TEXT NOT NULL,
  set_by  TEXT NOT NULL,
  set_at  TEXT NOT NULL
) STRICT;

-- Every change of a control, append-only like events.
CREATE TABLE control_events (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  at      TEXT NOT NULL,
  name    TEXT NOT NULL,
  action  TEXT NOT NULL CHECK (action IN ('set', 'cleared')),
  by_user TEXT NOT NULL,
  reason  TEXT NOT NULL
) STRICT;

CREATE TRIGGER control_events_no_update BEFORE UPDATE ON control_events
BEGIN
  SELECT RAISE(ABORT, 'control_events are append-only: UPDATE is not allowed');
END;

CREATE TRIGGER control_events_no_delete BEFORE DELETE ON control_events
BEGIN
  SELECT RAISE(ABORT, 'control_events are append-only: DELETE is not allowed');
END;

-- Slurm jobs named like this instance's (tp-<instance>-...) that no attempt holds. Reported,
-- never cancelled: only an operator knows what they are.
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
