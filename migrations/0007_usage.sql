-- What an ended attempt used, as slurmdbd recorded it (read once when the attempt ends): JSON
-- with each component's elapsed time and allocated CPUs, memory, nodes and GPUs, and the
-- attempt's GPU-hours; or why there is none (the cluster keeps no accounting; slurmdbd had no
-- record). Empty until it was read, and for attempts that ended before this column.
ALTER TABLE attempts ADD COLUMN usage TEXT;
