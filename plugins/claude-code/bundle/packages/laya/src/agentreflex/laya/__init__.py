"""agentreflex.laya — A local System One backend.

Not built yet: this distribution is a skeleton so the workspace, packaging
and per-package test environments exist from day one.  The real package is
coming in its own issue; see README.md.
"""

STATUS = "skeleton"
