-- How long after the intent a blocked attempt's searches ran, as `serve` measured it: the wall
-- clock's word when it first saw the attempt, its monotonic clock since (a step of the wall clock
-- while it runs does not count). `resolve --absent` needs a complete search at least the quiet
-- period after the intent by this measure; the journal's wall-clock times alone cannot say.

-- The last search by tag (with searched_at).
ALTER TABLE attempts ADD COLUMN search_elapsed_s INTEGER CHECK (search_elapsed_s >= 0);
-- The last complete search (with complete_search_at).
ALTER TABLE attempts ADD COLUMN complete_search_elapsed_s INTEGER CHECK (complete_search_elapsed_s >= 0);
