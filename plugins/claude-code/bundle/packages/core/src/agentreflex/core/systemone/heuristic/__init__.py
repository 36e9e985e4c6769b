"""The one heuristic System One engine: judge2's batteries answered from the state text.

Served by laya (``agentreflex laya serve``, engine ``builtin``) and used by
judge2's offline backend.  It lives in core because both packages already
depend on core and share its vocabulary for this exchange (the wire in
:mod:`agentreflex.core.systemone.wire`, the question ids in :mod:`agentreflex.core.systemone.signals`):
putting it in judge2 would make the server install httpx, putting it in laya
would make a hook depend on aiohttp and pydantic.  Standard library only.

Declared API: :class:`agentreflex.core.systemone.heuristic.engine.BuiltinEngine`
(``answer(state, questions)``, ``answer_batch``), ``MODEL_ID`` and
:func:`agentreflex.core.systemone.heuristic.reader.read`.
"""
