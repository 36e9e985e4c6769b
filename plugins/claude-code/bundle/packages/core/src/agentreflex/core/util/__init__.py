"""Small stdlib-only building blocks the hot path shares: records, digests, JSON, files, regexes."""
