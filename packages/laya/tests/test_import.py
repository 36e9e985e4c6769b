import subprocess
import sys

import agentreflex.laya as pkg


def test_package_declares_its_status() -> None:
    assert pkg.STATUS == "working"
    assert "/v1/systemone" in (pkg.__doc__ or "")


def test_importing_the_package_pulls_no_server_dependencies() -> None:
    code = (
        "import sys, agentreflex.laya, agentreflex.laya.cli\n"
        "heavy = {'aiohttp', 'pydantic', 'httpx', 'torch', 'laya'} & set(sys.modules)\n"
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
