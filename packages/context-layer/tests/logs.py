"""Real-world-shaped test logs for the saver's tests and tools/context_benchmark.py."""

from __future__ import annotations


def pytest_log(passed: int = 4000) -> str:
    out = ["============================= test session starts =============================="]
    out += [f"tests/test_mod.py::test_case_{i} PASSED" for i in range(passed)]
    out += [
        "=================================== FAILURES ===================================",
        "_________________________________ test_parse __________________________________",
        "    def test_parse():",
        ">       assert parse('1+2') == 4",
        "E       assert 3 == 4",
        "E        +  where 3 = parse('1+2')",
        "tests/test_mod.py:12: AssertionError",
        "=========================== short test summary info ============================",
        "FAILED tests/test_mod.py::test_parse - assert 3 == 4",
        f"========================= 1 failed, {passed} passed in 9.12s =========================",
    ]
    return "\n".join(out) + "\n"
