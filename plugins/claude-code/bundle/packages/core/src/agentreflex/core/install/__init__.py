"""``agentreflex install HOST`` / ``agentreflex uninstall HOST``: wire a host's hooks.

One mechanism for every host (:mod:`.settingsfile`): read the host's settings
file, refuse a malformed one before anything is written, compute the new
content with the host's adapter, print a unified diff (``--dry-run`` stops
there), keep a timestamped ``.bak`` of what is about to change, and write
atomically.  A second install changes nothing.  Uninstall removes only what
install added: hook handlers are recognised by their command (our
``agentreflex`` script, ``hook HOST``); everything else install added (the
sandbox block, the status line) is remembered in a small record outside the
project (:mod:`.manifest`).

Each host's quirks live in its own module: :mod:`.claude_code`, :mod:`.codex`.
Cold path only: nothing here is imported by a hook.
"""
