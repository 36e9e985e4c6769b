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


def jest_log(suites: int = 400) -> str:
    out: list[str] = []
    for s in range(suites):
        status = "\x1b[31mFAIL\x1b[39m" if s == suites // 2 else "\x1b[32mPASS\x1b[39m"
        out.append(f"{status} src/components/widget{s}.test.js")
        out += [f"  \x1b[32m✓\x1b[39m renders case {t} (3 ms)" for t in range(8)]
        if s == suites // 2:
            out += [
                "  ✕ formats the total (12 ms)",
                "",
                "  ● Widget \u203a formats the total",
                "",
                "    expect(received).toBe(expected) // Object.is equality",
                "",
                '    Expected: "$1,000.00"',
                '    Received: "$1000.00"',
                "",
                f"      at Object.<anonymous> (src/components/widget{s}.test.js:42:27)",
            ]
    out += [
        f"Test Suites: 1 failed, {suites - 1} passed, {suites} total",
        f"Tests:       1 failed, {suites * 8} passed, {suites * 8 + 1} total",
        "Snapshots:   0 total",
        "Time:        41.2 s",
    ]
    return "\n".join(out) + "\n"


def cargo_log(crates: int = 300) -> str:
    out = [f"   Compiling dep{i} v0.{i}.0" for i in range(crates)]
    out += [
        "    Finished test [unoptimized + debuginfo] target(s) in 52.10s",
        "     Running unittests src/lib.rs (target/debug/deps/app-1234)",
    ]
    out += ["", f"running {crates * 4} tests"]
    out += [f"test module{i}::tests::case_{i} ... ok" for i in range(crates * 4)]
    out += [
        "test parser::tests::parses_sum ... FAILED",
        "",
        "failures:",
        "",
        "---- parser::tests::parses_sum stdout ----",
        "thread 'parser::tests::parses_sum' panicked at src/parser.rs:88:9:",
        "assertion `left == right` failed",
        "  left: 3",
        " right: 4",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        "",
        "failures:",
        "    parser::tests::parses_sum",
        "",
        f"test result: FAILED. {crates * 4} passed; 1 failed; 0 ignored; 0 measured",
        "error: test failed, to rerun pass `--lib`",
    ]
    return "\n".join(out) + "\n"


def go_log(packages: int = 300) -> str:
    out: list[str] = []
    for p in range(packages):
        out += [f"=== RUN   TestCase{p}_{t}" for t in range(6)]
        out += [f"--- PASS: TestCase{p}_{t} (0.00s)" for t in range(6)]
        if p == packages - 10:
            out += [
                "=== RUN   TestParseSum",
                '    parser_test.go:31: Parse("1+2") = 3, want 4',
                "--- FAIL: TestParseSum (0.00s)",
                "FAIL",
                f"FAIL\texample.com/app/pkg{p}\t0.012s",
            ]
        else:
            out.append(f"ok  \texample.com/app/pkg{p}\t0.0{p % 9}1s")
    out.append("FAIL")
    return "\n".join(out) + "\n"


def webpack_log(modules: int = 4000) -> str:
    out = ["asset main.js 4.2 MiB [emitted] (name: main)"]
    out += [
        f"  ./src/modules/m{i}.js 1.{i % 9} KiB [built] [code generated]" for i in range(modules)
    ]
    out += [
        "",
        "ERROR in ./src/app.js 12:0-38",
        "Module not found: Error: Can't resolve './utils/format' in '/app/src'",
        " @ ./src/index.js 3:0-24",
        "",
        "WARNING in ./src/legacy.js",
        "Critical dependency: the request of a dependency is an expression",
        "",
        "webpack 5.90.0 compiled with 1 error and 1 warning in 8123 ms",
    ]
    return "\n".join(out) + "\n"


GENERATORS = {
    "pytest": lambda: pytest_log(40000),
    "jest": lambda: jest_log(3000),
    "cargo": lambda: cargo_log(6000),
    "go test": lambda: go_log(4000),
    "webpack": lambda: webpack_log(40000),
}
