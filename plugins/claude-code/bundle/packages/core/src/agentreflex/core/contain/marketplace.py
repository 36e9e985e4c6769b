"""The plugin folders a host installs from in the project, with no prompt, and runs in place.

Why: a project setting's ``extraKnownMarketplaces`` (Claude Code's, and Copilot CLI's
own: traced, 1.0.102) names a marketplace by folder; the plugins it lists are installed
from there and their servers and hooks run outside any boundary.  So the folder is held
like the scripts a setting names (:func:`.hostruns.named_files`).  Stdlib only: it runs
on each contained command's plan.
"""

from __future__ import annotations

import os

from agentreflex.core.contain.projectpath import in_project
from agentreflex.core.util.fsutil import read_json

__all__ = ["CATALOGUES", "folders"]

_MAX_BYTES = 1 << 20  # a catalogue larger than this is not read


def folders(value: object, project: str) -> list[str]:
    """What a setting's ``extraKnownMarketplaces`` installs plugins from in the project:
    the marketplace's folder, or, when that is the project itself (``"path": "."``), its
    catalogue and each plugin's folder."""
    markets = value.get("extraKnownMarketplaces") if isinstance(value, dict) else None
    found: list[str] = []
    for market in markets.values() if isinstance(markets, dict) else ():
        source = market.get("source") if isinstance(market, dict) else None
        path = source.get("path") if isinstance(source, dict) else None
        if not isinstance(path, str):
            continue
        folder = in_project(path, project, os.path.isdir)
        if folder:
            found.append(folder)
        elif os.path.normpath(os.path.join(project, path)) == os.path.normpath(project):
            found += _catalogue(project)
    return found


# where a marketplace's catalogue is (Claude Code's, and Copilot CLI's own)
CATALOGUES = (".claude-plugin/marketplace.json", ".github/plugin/marketplace.json")


def _catalogue(project: str) -> list[str]:
    """The project's marketplace catalogues, and the plugin folders they list."""
    found = []
    for name in CATALOGUES:
        catalogue = os.path.join(project, name)
        value = read_json(catalogue, _MAX_BYTES)
        if not isinstance(value, dict):
            continue
        found.append(catalogue)
        plugins = value.get("plugins")
        for plugin in plugins if isinstance(plugins, list) else ():
            source = plugin.get("source") if isinstance(plugin, dict) else None
            for path in _sources(source, value.get("metadata")):
                folder = in_project(path, project, os.path.isdir)
                if folder and folder not in found:
                    found.append(folder)
    return found


def _sources(source: object, metadata: object) -> list[str]:
    """Where a plugin's folder may be: its ``source``, and that below the catalogue's
    ``metadata.pluginRoot`` ("the base folder for relative plugin sources")."""
    if not isinstance(source, str):
        return []
    root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    return [source, os.path.join(root, source)] if isinstance(root, str) else [source]
