"""agentreflex.router — a model-routing proxy the hosts already know how to use.

Point a host at it (``ANTHROPIC_BASE_URL=http://127.0.0.1:8787`` for Claude
Code, an OpenAI base URL for the others) and each request goes to the lane
``agentreflex.routing`` picks, translated when that lane speaks the other
API, with fallbacks before the first byte and ``/status`` saying why.
"""

STATUS = "working"
