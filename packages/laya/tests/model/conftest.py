"""The model engine's tests need the ``model`` extra (laya, torch, transformers).

``tox -e laya-model`` installs it and requires them (``AGENTREFLEX_LAYA_MODEL=required``:
a missing torch there is an error, never a silent skip).  Elsewhere, without the
extra, they are not collected at all.
"""

import importlib.util
import os

if os.environ.get("AGENTREFLEX_LAYA_MODEL") != "required" and (
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("laya") is None
):
    collect_ignore_glob = ["test_*.py"]
