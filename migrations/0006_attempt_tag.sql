-- The tag each attempt's Slurm job was given, as it was rendered: its job name and its working
-- directory (the comment is the submit token's). A deployment whose instance name is changed
-- (`journal move-deployment`) keeps finding the jobs it already gave to Slurm by the tag they
-- carry. Empty for attempts prepared before this column: their tag is computed from the settings.
ALTER TABLE attempts ADD COLUMN tag_name TEXT;
ALTER TABLE attempts ADD COLUMN tag_workdir TEXT;
