-- What following a job to its end needs beyond the reconciler's first schema: a cancel's
-- grace, when Slurm was last seen to change, the checkpoint signal, and when the cleanup step
-- last moved.

-- `cancel --grace SECONDS`: SIGUSR1 first, the kill this many seconds later. NULL: kill at once.
ALTER TABLE jobs ADD COLUMN cancel_grace_seconds INTEGER CHECK (cancel_grace_seconds >= 0);
-- When a change of the attempt's Slurm job was last journaled (state, reason, exit code).
ALTER TABLE attempts ADD COLUMN observed_at TEXT;
-- A cancel with grace: when the checkpoint signal reached the job.
ALTER TABLE attempts ADD COLUMN signalled_at TEXT;
-- When the cleanup step last moved (a step that stays too long is reported).
ALTER TABLE attempts ADD COLUMN cleanup_at TEXT;
