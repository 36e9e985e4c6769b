"""The hook path: runtime, the thin client, the warm daemon and what it starts."""
