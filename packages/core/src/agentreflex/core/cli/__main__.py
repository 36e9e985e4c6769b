"""``python -m agentreflex.core.cli``: how hosts and the daemon start the command."""

from agentreflex.core.cli import main

raise SystemExit(main())
