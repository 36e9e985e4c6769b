"""The done reflex: a stop is judged by what the record shows, before any model is asked.

``reflex.py`` is the reflex (tests run, files changed, obligations open at a
stop), ``evidence.py`` what the session's record proves, ``claims.py`` the
claims in the agent's final message set against that evidence.  The judge
beside it (``judge.py`` and its backends) is what the reflex may ask when the
record alone cannot decide.
"""
