"""agentreflex.judge2: calibrated probabilities for reflexes, and the done reflex.

The judge asks small typed questions (seed 001's three batteries) about a
concise, redacted text state and returns probabilities.  It never decides:
reflexes compare the numbers with named thresholds.  Backends are the Jev
System One API over HTTP (or anything speaking the same wire, such as a local
laya server) and an offline heuristic that needs no key and no network.

Nothing is imported here on purpose: the hook path imports only the modules
it uses, and httpx only when the HTTP backend is actually called.
"""
