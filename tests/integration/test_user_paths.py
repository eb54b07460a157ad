"""The user's-path suite: every README command and setting, run as a user runs it.

Each command runs in a process of its own (`tests.processes.athena`, or `python -m
agents.cli` under a terminal or in the background), against a fresh data dir or the
session's embedded server with a namespace of its own, and the tests check what a user
sees: exit codes, the lines printed, the files written and what they hold, the state
of memory afterwards. Expected values come from the datasets and the texts written
here, never from the product's own functions.

Most commands and settings are exercised in `test_cli_as_users_run_it.py` and a few
other files; `COMMAND_TESTS` and `SETTING_TESTS` below say which test covers which,
and the first two tests fail when the README's "Command line" or "Settings" table,
`athena --help` and these registries disagree. This file adds what was missing:
`athena bench`, `reembed` (its progress under a terminal), `demo`, `review` across
processes, `chat` / `jobs` / `worker` / `sweep`, and the settings
`ATHENA_LOAD_TIMEOUT`, `ATHENA_CHANGE_LOG_KEEP`, `ATHENA_LLM_CONCURRENCY` (with the
model, price and namespace settings) and `ATHENA_FIELDS`.
"""

from __future__ import annotations

import ast
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakeopenai import FakeOpenAI
from tests.processes import athena, server_pids

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
README = REPO / "README.md"
RULES_USED = 8  # the dev set's first rules: gas stations, cooking, jewelry, property
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# -- Which test runs which command / setting as a user does ---------------------------
# Paths are relative to tests/; every test named must exist and its file must run the
# CLI in a process of its own (`python -m agents.cli` or `tests.processes`).

CLI = "integration/test_cli_as_users_run_it.py::"
HERE = "integration/test_user_paths.py::"
DB_TEST = CLI + "test_db_start_status_stop_and_start_again_on_a_fresh_data_dir"
LOAD_TEST = HERE + "test_load_timeout_bounds_the_wait_for_a_server_that_is_loading"
REVIEW_TEST = HERE + "test_a_referral_paused_by_review_start_is_resumed_by_another_process"
CHAT_TEST = HERE + "test_chat_jobs_worker_and_sweep_teach_the_agent_across_processes"
LLM_TEST = HERE + "test_llm_concurrency_models_prices_and_namespace_settings_reach_the_model"
REEMBED_TEST = HERE + "test_reembed_switches_embedders_with_a_progress_bar_in_a_terminal"
FIELDS_TEST = HERE + "test_the_fields_setting_checks_and_decides_with_that_dictionary"
BENCH_TEST = "test_bench_writes_its_report_files_holding_the_numbers_of_the_run"

COMMAND_TESTS: dict[str, tuple[str, ...]] = {
    "db start": (DB_TEST,),
    "db stop": (DB_TEST,),
    "db status": (DB_TEST, LOAD_TEST),
    "ingest": (
        CLI + "test_ingest_of_text_and_markdown_offline_writes_rules_and_lists_uncovered_sentences",
        FIELDS_TEST,
    ),
    "query": (CLI + "test_query_prints_the_expected_rules_by_name",),
    "trace": (CLI + "test_trace_prints_each_path_of_the_risk_with_its_rule_mitigants_and_source",),
    "conflicts": (
        "integration/test_accumulating_knowledge.py::"
        "test_conflicts_are_listed_and_noted_on_decisions",
    ),
    "decide": (
        "integration/test_accumulating_knowledge.py::"
        "test_amendments_retirements_and_products_through_claims",
        FIELDS_TEST,
        CHAT_TEST,
    ),
    "review start": (REVIEW_TEST,),
    "review resume": (REVIEW_TEST,),
    "mcp": (
        "integration/test_mcp.py::test_every_tool_over_stdio",
        "integration/test_mcp.py::test_read_only_over_streamable_http",
    ),
    "ui": ("integration/test_review_page.py::test_rules_search_and_filters",),
    "chat": (CHAT_TEST,),
    "worker": (CHAT_TEST,),
    "jobs": (CHAT_TEST,),
    "sweep": (CHAT_TEST,),
    "export": (CLI + "test_export_to_a_file_holds_the_rules_that_were_ingested",),
    "visualize": (
        CLI + "test_visualize_writes_a_self_contained_html_page_naming_every_rule",
        "integration/test_visualize_focused.py::"
        "test_a_rule_view_as_html_names_its_outcome_source_and_mitigants",
    ),
    "eval": (CLI + "test_eval_of_two_datasets_in_both_modes_prints_them_side_by_side",),
    "demo": (HERE + "test_demo_of_a_dataset_decides_as_the_dataset_expects_in_a_fresh_namespace",),
    "reembed": (REEMBED_TEST,),
    "bench": (HERE + BENCH_TEST,),
}

# Settings whose test sets them on an in-process `Settings` (not through a process's
# environment) are marked so in docs/testing.md.
SETTING_TESTS: dict[str, tuple[str, ...]] = {
    "FALKORDB_URL": (
        CLI + "test_a_remote_server_is_not_started_or_stopped_and_its_password_never_shows",
    ),
    "FALKORDB_POOL_SIZE": (
        "integration/test_pool.py::test_the_pool_bounds_queries_in_flight",
        "unit/test_scale_out_units.py::test_pool_size_and_read_urls_settings",
    ),
    "FALKORDB_READ_URLS": (
        "integration/test_cluster.py::test_read_replica_serves_reads_and_the_writer_reads_its_writes",
    ),
    "ATHENA_DATA_DIR": (DB_TEST,),
    "ATHENA_INDEX_SNAPSHOTS": (CLI + "test_index_snapshots_follow_the_setting",),
    "ATHENA_CHANGE_LOG_KEEP": (HERE + "test_change_log_keep_decides_when_a_reader_rebuilds_whole",),
    "ATHENA_LOAD_TIMEOUT": (LOAD_TEST,),
    "OPENAI_API_KEY": (LLM_TEST, REEMBED_TEST),
    "OPENAI_BASE_URL": (LLM_TEST, REEMBED_TEST),
    "ATHENA_LLM_MODEL": (LLM_TEST,),
    "ATHENA_EXTRACTION_MODEL": (LLM_TEST,),
    "ATHENA_EMBEDDER": (REEMBED_TEST,),
    "ATHENA_LLM_CONCURRENCY": (LLM_TEST,),
    "ATHENA_LLM_TIMEOUT": (
        "integration/test_llm_server.py::test_429_retry_after_is_honoured_and_slow_answers_time_out",
    ),
    "ATHENA_LLM_MAX_RETRIES": (
        "integration/test_llm_server.py::test_agent_500_writes_nothing_and_a_rerun_completes",
    ),
    "ATHENA_LLM_PRICES": (LLM_TEST,),
    "ATHENA_NAMESPACE": (LLM_TEST,),
    "ATHENA_FIELDS": (FIELDS_TEST,),
    "ATHENA_MCP_TOKEN": ("integration/test_mcp.py::test_read_only_over_streamable_http",),
}


@pytest.fixture(autouse=True)
def _a_users_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands see no `ATHENA_*` setting of the caller's shell, only what a test sets."""
    for name in [n for n in os.environ if n.startswith("ATHENA_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    """The stdout of a command that must have succeeded."""
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _one_line_error(done: subprocess.CompletedProcess[str], code: int, command: str) -> str:
    """The one stderr line of a command that failed with exit `code`."""
    assert done.returncode == code, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"athena {command}: error: "), lines[0]
    return lines[0]


def _ns(label: str) -> str:
    return f"agent:up-{label}-{uuid.uuid4().hex[:8]}"


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    return path


def _ranked(out: str) -> list[str]:
    """The rule names of `athena query`'s lines " 1. NAME  (score 0.123)"."""
    return re.findall(r"^\s*\d+\. (.+?)  \(score \d\.\d{3}\)$", out, re.M)


# -- The README, `athena --help` and the registries agree ------------------------------


def _section(title: str) -> str:
    text = README.read_text("utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def _readme_commands() -> set[str]:
    """The commands of the "Command line" table's rows whose first cell starts with athena."""
    commands = set()
    for row in _section("Command line").splitlines():
        if not row.startswith("| `athena"):
            continue
        cell = re.split(r"(?<!\\)\|", row)[1]
        for usage in re.findall(r"`(athena [^`]*)`", cell):
            words = []
            for token in usage.replace("\\|", "|").split()[1:]:
                if not re.fullmatch(r"[a-z][a-z-]*(\|[a-z][a-z-]*)*", token):
                    break  # an option, a placeholder (TEXT, RISK...) or a group
                words.append(token.split("|"))
            assert words, f"no command in {usage!r}"
            head, *rest = words
            assert len(head) == 1, usage
            commands |= {f"{head[0]} {w}" for w in rest[0]} if rest else {head[0]}
    return commands


def _subcommands(help_text: str) -> set[str]:
    """The subcommands an argparse help lists under its positional arguments."""
    listed = help_text.split("positional arguments:", 1)[1].split("\noptions:", 1)[0]
    return set(re.findall(r"^    ([a-z][a-z-]*)(?:\s{2,}|$)", listed, re.M))


def _test_code(entry: str) -> list[ast.AST]:
    """The code the test `path::name` runs: its function and the module-level functions,
    fixtures, classes and constants it names, and those they name in turn."""
    path, name = entry.split("::")
    tree = ast.parse((TESTS / path).read_text("utf-8"))
    defined: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update({t.id: node for t in targets if isinstance(t, ast.Name)})
        elif isinstance(node, ast.ImportFrom) and node.module == "tests.processes":
            defined.update({a.asname or a.name: node for a in node.names})
    assert isinstance(defined.get(name), ast.FunctionDef | ast.AsyncFunctionDef), (
        f"{entry}: no such test"
    )
    code: list[ast.AST] = []
    todo = [name]
    while todo:
        found = defined[todo.pop()]
        if found in code:
            continue
        code.append(found)
        for inner in ast.walk(found):
            named = inner.id if isinstance(inner, ast.Name) else None
            named = inner.arg if isinstance(inner, ast.arg) else named  # fixtures
            if named in defined and defined[named] not in code:
                todo.append(named)
    return code


def _runs_the_cli_in_a_process(code: list[ast.AST]) -> bool:
    for node in code:
        if isinstance(node, ast.ImportFrom):
            return True  # from tests.processes import athena: used by the test
        if any(isinstance(n, ast.Constant) and n.value == "agents.cli" for n in ast.walk(node)):
            return True  # [sys.executable, "-m", "agents.cli", ...]
    return False


def _names_used(code: list[ast.AST]) -> set[str]:
    """The strings and keyword names in a test's code (`SETTING=...` given to a helper)."""
    used = set()
    for node in code:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id in ("COMMAND_TESTS", "SETTING_TESTS"):
                continue  # the registries name everything
        for inner in ast.walk(node):
            if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                used.add(inner.value)
            elif isinstance(inner, ast.keyword) and inner.arg:
                used.add(inner.arg)
    return used


def test_every_command_of_the_readme_and_of_help_has_a_users_path_test(tmp_path: Path) -> None:
    listed = _subcommands(_ok(athena(tmp_path / "unused", "--help")))
    readme = _readme_commands()
    assert {"db start", "review resume", "visualize", "sweep"} <= readme  # the table was read
    assert len(listed) >= 15, listed  # the help was read
    groups = {c.split()[0] for c in readme if " " in c}
    actions = {g: _subcommands(_ok(athena(tmp_path / "unused", g, "--help"))) for g in groups}
    not_commands = {
        c
        for c in readme
        if c.split()[0] not in listed or (" " in c and c.split()[1] not in actions[c.split()[0]])
    }
    assert not_commands == set(), "README commands that `athena --help` does not list"
    untested = {c for c in listed if not any(k.split()[0] == c for k in COMMAND_TESTS)}
    untested |= readme - set(COMMAND_TESTS)
    assert untested == set(), "commands without a test in COMMAND_TESTS"
    stale = {k for k in COMMAND_TESTS if k.split()[0] not in listed}
    assert stale == set(), "COMMAND_TESTS names commands athena does not have"
    for command, entries in COMMAND_TESTS.items():
        assert entries, command
        for entry in entries:
            code = _test_code(entry)
            assert _runs_the_cli_in_a_process(code), f"{entry} runs no athena process"
            assert set(command.split()) <= _names_used(code), f"{entry} never runs {command!r}"
    assert not (tmp_path / "unused").exists()  # --help starts nothing


def _readme_settings() -> set[str]:
    names = set()
    for row in _section("Settings").splitlines():
        if row.startswith("| `"):
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", re.split(r"(?<!\\)\|", row)[1]))
    return names


def test_every_setting_of_the_readme_has_a_test() -> None:
    readme = _readme_settings()
    assert {"FALKORDB_URL", "ATHENA_LOAD_TIMEOUT", "ATHENA_LLM_MAX_RETRIES"} <= readme
    assert readme - set(SETTING_TESTS) == set(), "settings without a test in SETTING_TESTS"
    assert set(SETTING_TESTS) - readme == set(), "SETTING_TESTS names settings not in the README"
    for setting, entries in SETTING_TESTS.items():
        used = set().union(*(_names_used(_test_code(entry)) for entry in entries))
        assert setting in used, f"no test of {setting} sets it"


# -- athena bench (started in the background: it runs while the tests below run) -------


@dataclass(frozen=True)
class BenchRun:
    process: subprocess.Popen[bytes]
    dataset: Path
    out: Path
    data: Path
    stdout: Path
    stderr: Path
    args: tuple[str, ...]


@pytest.fixture(scope="module", autouse=True)
def bench_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BenchRun | None]:
    """`athena bench --sizes 50` on a small dataset, started when this module starts.

    It takes some 30 s of its own (fresh processes, a restart, a crash); started first,
    it runs while the module's other tests run. Not started when its test is deselected
    or the dev set is missing (its test is then skipped).
    """
    here = Path(__file__).resolve()
    if not any(
        item.name == BENCH_TEST and Path(str(item.path)).resolve() == here
        for item in request.session.items
    ):
        yield None
        return
    try:
        dev_set: Path = request.getfixturevalue("dev_set")
    except pytest.skip.Exception:
        yield None
        return
    folder = tmp_path_factory.mktemp("bench")
    dataset = folder / "small-set"
    dataset.mkdir()
    rules = _read_jsonl(dev_set / "rules.jsonl")[:RULES_USED]
    names = {r["rule_name"] for r in rules}
    _write_jsonl(dataset / "rules.jsonl", rules)
    queries = [q for q in _read_jsonl(dev_set / "queries.jsonl") if set(q["expected"]) <= names]
    _write_jsonl(dataset / "queries.jsonl", queries)
    # Submissions whose every firing rule is among these: decided as the dev set says.
    subs = [
        s
        for s in _read_jsonl(dev_set / "submissions.jsonl")
        if s["expected_rules"] and set(s["expected_rules"]) <= names
    ]
    _write_jsonl(dataset / "submissions.jsonl", subs)
    out, data = folder / "report", folder / "bench-data"
    args = ("bench", "--sizes", "50", "--dataset", str(dataset), "--out", str(out), "--data-dir",
            str(data))  # fmt: skip
    stdout, stderr = folder / "stdout", folder / "stderr"
    foreign = ("ATHENA_", "OPENAI_", "FALKORDB_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(foreign)}
    with stdout.open("wb") as out_file, stderr.open("wb") as err_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "agents.cli", *args],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_file,
            stderr=err_file,
        )
    try:
        yield BenchRun(process, dataset, out, data, stdout, stderr, args)
    finally:
        if process.poll() is None:  # the test failed or was interrupted
            process.kill()
            process.wait(timeout=30)
            athena(data / "db", "db", "stop")


# -- athena reembed ------------------------------------------------------------------


def _in_a_terminal(
    data_dir: Path, *args: str, env: dict[str, str], timeout: float = 120
) -> tuple[int, str]:
    """Run `athena ARGS...` with a terminal (a pty) as its stdin, stdout and stderr.

    Returns the exit code and everything written to the terminal, escape sequences
    removed, with each carriage return (a progress bar redrawn) as a line break.
    """
    main, sub = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=REPO,
        env={**os.environ, "ATHENA_DATA_DIR": str(data_dir), "TERM": "xterm", "COLUMNS": "160",
             **env},
        stdin=sub,
        stdout=sub,
        stderr=sub,
    )  # fmt: skip
    os.close(sub)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([main], [], [], timeout)
            assert ready, f"athena {args[0]} wrote nothing for {timeout} s"
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: every end of the terminal is closed, the process ended
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(main)
        if process.poll() is None:
            process.kill()
        code = process.wait(timeout=30)
    screen = b"".join(chunks).decode("utf-8", "replace")
    screen = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "", screen)
    return code, screen.replace("\r\n", "\n").replace("\r", "\n")


def _embedded_texts(fake: FakeOpenAI) -> list[str]:
    texts: list[str] = []
    for request in fake.requests:
        if request.kind == "embeddings":
            given = json.loads(request.body)["input"]
            texts += [given] if isinstance(given, str) else given
    return texts


def test_reembed_switches_embedders_with_a_progress_bar_in_a_terminal(
    falkordb_dir: Path, dev_set: Path, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    ns = _ns("reembed")
    rules = _read_jsonl(dev_set / "rules.jsonl")
    first = _write_jsonl(tmp_path / "first.jsonl", rules[:RULES_USED])
    later = _write_jsonl(tmp_path / "later.jsonl", [rules[RULES_USED]])
    names = {r["rule_name"] for r in rules[:RULES_USED]}
    [q] = [
        q
        for q in _read_jsonl(dev_set / "queries.jsonl")
        if len(q["expected"]) == 1 and set(q["expected"]) <= names and q["product_type"]
    ][:1]
    query = ("query", q["query"], "--product-type", q["product_type"], "--namespace", ns)
    key = {
        "OPENAI_API_KEY": "test-key-not-secret",
        "OPENAI_BASE_URL": fake_openai.base_url,
        "ATHENA_EMBEDDING_MODEL": "fake-embed",  # the scripted server's vectors: 64-d
    }
    _ok(athena(falkordb_dir, "ingest", str(first), "--rules", "--namespace", ns))
    # Written offline: with a key set later, reads still embed with WordLlama.
    assert _ranked(_ok(athena(falkordb_dir, *query, env=key)))[0] == q["expected"][0]
    assert fake_openai.count("embeddings") == 0
    # Asking explicitly for OpenAI vectors in this namespace is refused, naming the way out.
    explicit = {**key, "ATHENA_EMBEDDER": "openai"}
    refused = athena(falkordb_dir, "ingest", str(later), "--rules", "--namespace", ns, env=explicit)
    assert "athena reembed" in _one_line_error(refused, 2, "ingest")

    code, screen = _in_a_terminal(
        falkordb_dir, "reembed", "--embedder", "openai", "--namespace", ns, env=key
    )
    assert code == 0, screen
    lines = [line for line in screen.splitlines() if line.strip()]
    bars = [line for line in lines if line.startswith(f"re-embedding {ns}")]
    assert bars and "100%" in bars[-1], screen  # the progress bar, drawn to the end
    done = re.fullmatch(
        rf"reembed {ns}: (\d+) name\(s\) and (\d+) fact\(s\) re-embedded, "
        r"wordllama \S+ \(256-d\) -> openai fake-embed \(64-d\)",
        lines[-1],
    )
    assert done, lines[-1]
    entities, facts = int(done.group(1)), int(done.group(2))
    embedded = _embedded_texts(fake_openai)
    # Every rule and risk factor name of the file, and each rule's outcome in its facts.
    for rule in rules[:RULES_USED]:
        assert rule["rule_name"] in embedded and rule["risk_factor"] in embedded
        assert any(rule["outcome_description"] in text for text in embedded), rule["rule_name"]
    assert len(embedded) >= entities + facts >= 2 * RULES_USED

    # Now queries embed through the model server, and the explicit choice is accepted.
    before = len(_embedded_texts(fake_openai))
    assert _ranked(_ok(athena(falkordb_dir, *query, env=key)))[0] == q["expected"][0]
    assert q["query"] in _embedded_texts(fake_openai)[before:]
    _ok(athena(falkordb_dir, "ingest", str(later), "--rules", "--namespace", ns, env=explicit))
    # Without the key the namespace cannot be read; re-embedding it offline is the way back.
    offline = _one_line_error(athena(falkordb_dir, *query), 2, "query")
    assert "athena reembed --embedder wordllama" in offline
    back = json.loads(
        _ok(athena(falkordb_dir, "reembed", "--embedder", "wordllama", "--namespace", ns, "--json"))
    )
    assert back["namespace"] == ns and back["entities"] > entities and back["edges"] > facts
    assert back["from"] == "openai fake-embed (64-d)" and back["to"].startswith("wordllama")
    assert _ranked(_ok(athena(falkordb_dir, *query)))[0] == q["expected"][0]


# -- ATHENA_LOAD_TIMEOUT --------------------------------------------------------------


def test_load_timeout_bounds_the_wait_for_a_server_that_is_loading(tmp_path: Path) -> None:
    data = tmp_path / "d"
    mark = data / "falkordb.replaying"
    try:
        started = json.loads(_ok(athena(data, "db", "start", "--json")))
        # The state after a crash whose log tail could not be rewritten (README, "The
        # embedded database"): the server replays its append-only file, and no command
        # is sent to it until its log says it is ready (from the size it had then).
        mark.write_text(f"{(data / 'falkordb.log').stat().st_size}\n")
        began = time.monotonic()
        done = athena(data, "query", "gas station", env={"ATHENA_LOAD_TIMEOUT": "1"})
        took = time.monotonic() - began
        error = _one_line_error(done, 1, "query")  # after 1 s, not the default 300 s
        assert f"FalkorDB in {data.resolve()} is still replaying" in error
        assert "after 1 s" in error and "ATHENA_LOAD_TIMEOUT=1 s" in error
        assert took >= 1
        status = athena(data, "db", "status")
        assert status.stdout.startswith("FalkorDB loading its data"), status.stdout
        shown = json.loads(athena(data, "db", "status", "--json").stdout)
        assert shown["running"] is False and shown["pid"] == started["pid"]
        assert server_pids(data) == [started["pid"]]  # no second server was started
        mark.unlink()  # the server has loaded
        assert _ok(athena(data, "query", "gas station")) == "no matching rules\n"
    finally:
        mark.unlink(missing_ok=True)
        athena(data, "db", "stop")
    assert server_pids(data) == []


# -- ATHENA_CHANGE_LOG_KEEP -----------------------------------------------------------


def test_change_log_keep_decides_when_a_reader_rebuilds_whole(
    falkordb_dir: Path, dev_set: Path, tmp_path: Path
) -> None:
    ns = _ns("keep")
    rules = _read_jsonl(dev_set / "rules.jsonl")
    first = _write_jsonl(tmp_path / "first.jsonl", rules[:RULES_USED])
    one_by_one = [
        _write_jsonl(tmp_path / f"rule-{i}.jsonl", [rule])
        for i, rule in enumerate(rules[RULES_USED : RULES_USED + 4])
    ]

    def ingest(path: Path, env: dict[str, str] | None = None) -> None:
        _ok(athena(falkordb_dir, "ingest", str(path), "--rules", "--namespace", ns, env=env))

    def query_logs(rule: dict[str, Any]) -> str:
        args = ("-v", "query", rule["risk_factor"], "--namespace", ns, "--limit", "10")
        done = athena(falkordb_dir, *args, "--product-type", rule["product_type"])
        assert rule["rule_name"] in _ranked(_ok(done)), done.stdout
        return done.stderr

    ingest(first)
    query_logs(rules[0])  # builds its index and saves it with the log offset it reflects
    ingest(one_by_one[0])  # a commit under the default (10,000 kept)
    logs = query_logs(rules[RULES_USED])  # starts from the saved index, reads the log on
    assert "loaded lexical index snapshot" in logs and "building lexical index" not in logs
    # Commits that each trim the log to the newest one: three, so that whatever offset
    # the reader saved last, the entries after it are gone.
    for path in one_by_one[1:]:
        ingest(path, {"ATHENA_CHANGE_LOG_KEEP": "1"})
    logs = query_logs(rules[RULES_USED + 3])
    assert "loaded lexical index snapshot" in logs
    assert "building lexical index of" in logs  # the log was trimmed past its offset


# -- ATHENA_LLM_CONCURRENCY, ATHENA_LLM_MODEL, ATHENA_EXTRACTION_MODEL, ATHENA_LLM_PRICES,
#    ATHENA_NAMESPACE ----------------------------------------------------------------


class ExtractionGate:
    """Holds each extraction request at the scripted server to see how many overlap.

    A request waits until `limit` requests are in flight (they overlap: an event), then
    up to `grace` seconds more for one beyond the limit, which must never come.
    """

    def __init__(self, fake: FakeOpenAI, limit: int, grace: float = 0.5) -> None:
        self.limit, self.grace, self.most, self._in = limit, grace, 0, 0
        self.stalled = False  # `limit` requests never overlapped: hold none any more
        self._changed = threading.Condition()
        self._handle = fake.handle
        fake.handle = self.handle  # type: ignore[method-assign]

    def handle(self, path: str, raw: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
        if b"ExtractionOutput" not in raw:
            return self._handle(path, raw)
        with self._changed:
            self._in += 1
            self.most = max(self.most, self._in)
            self._changed.notify_all()
            if not self.stalled:
                met = self._changed.wait_for(lambda: self._in >= self.limit, timeout=10)
                self.stalled = not met
                self._changed.wait_for(lambda: self._in > self.limit, timeout=self.grace)
        try:
            return self._handle(path, raw)
        finally:
            with self._changed:
                self._in -= 1


def test_llm_concurrency_models_prices_and_namespace_settings_reach_the_model(
    falkordb_dir: Path, dev_set: Path, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    texts = _read_jsonl(dev_set / "knowledge.jsonl")[:4]
    gold = [
        r for r in _read_jsonl(dev_set / "rules.jsonl") if r["text_id"] in {t["id"] for t in texts}
    ]
    for text in texts:
        fake_openai.rules[text["id"]] = [r for r in gold if r["text_id"] == text["id"]]
    gate = ExtractionGate(fake_openai, limit=2)
    ns = _ns("llm")
    prices = {"extract-model-t": [3.0, 12.0], "agent-model-t": [0.5, 2.0]}
    env = {
        "OPENAI_API_KEY": "test-key-not-secret",
        "OPENAI_BASE_URL": fake_openai.base_url,
        "ATHENA_EMBEDDING_MODEL": "fake-embed",
        "ATHENA_LLM_CONCURRENCY": "2",
        "ATHENA_EXTRACTION_MODEL": "extract-model-t",
        "ATHENA_LLM_MODEL": "agent-model-t",
        "ATHENA_LLM_PRICES": json.dumps(prices),
        "ATHENA_NAMESPACE": ns,
    }
    knowledge = _write_jsonl(tmp_path / "knowledge.jsonl", texts)
    report = json.loads(_ok(athena(falkordb_dir, "ingest", str(knowledge), "--json", env=env)))

    assert gate.most == 2  # two extractions at once, never a third
    assert report["mode"] == "llm" and report["namespace"] == ns and report["failed_texts"] == []
    assert sorted(report["rule_names"]) == sorted(r["rule_name"] for r in gold)
    sent = [(r.kind, json.loads(r.body)["model"], r.chars) for r in fake_openai.requests]
    extraction = [chars for kind, model, chars in sent if kind == "extraction"]
    assert len(extraction) == len(texts)
    assert {model for kind, model, _ in sent if kind == "extraction"} == {"extract-model-t"}
    assert {model for kind, model, _ in sent if kind == "agent"} == {"agent-model-t"}
    usage = {u["model"]: u for u in report["usage"]}
    assert set(usage) == {"extract-model-t", "agent-model-t"}
    # The scripted server counts a request's characters / 4 as its input tokens.
    assert usage["extract-model-t"]["requests"] == len(texts)
    assert usage["extract-model-t"]["input_tokens"] == sum(c // 4 for c in extraction)
    for model, (per_in, per_out) in prices.items():
        used = usage[model]
        cost = (used["input_tokens"] * per_in + used["output_tokens"] * per_out) / 1e6
        assert used["cost_usd"] == pytest.approx(cost, rel=1e-3, abs=1e-6), model
    assert report["cost_usd"] == pytest.approx(sum(u["cost_usd"] for u in usage.values()))
    exported = json.loads(
        _ok(athena(falkordb_dir, "export", "--json", env={"ATHENA_NAMESPACE": ns}))
    )
    assert exported["namespace"] == ns
    assert {r["rule_name"] for r in exported["rules"]} == {r["rule_name"] for r in gold}


# -- ATHENA_FIELDS --------------------------------------------------------------------

CREW_FIELDS = {
    "fields": {
        "product_type": {"type": "str", "unit": None, "synonyms": ["product"],
                         "description": "Product: BOP, LRO, Property, GL"},
        "crew_size": {"type": "int", "unit": None, "synonyms": ["crew size", "crew"],
                      "description": "People on the roofing crew"},
    }
}  # fmt: skip
CREW_RULE = {
    "rule_name": "Large Crew Referral",
    "risk_factor": "Large Crew",
    "risk_category": "operations",
    "product_type": "GL",
    "action": "refer",
    "outcome_description": "Roofing crews of more than twelve people are referred.",
    "mitigants": [],
    "source": "Crew Guide",
    "source_type": "manual",
    "confidence": "high",
    "conditions": [{"field": "crew_size", "operator": "gt", "value": 12}],
}


def test_the_fields_setting_checks_and_decides_with_that_dictionary(
    falkordb_dir: Path, tmp_path: Path
) -> None:
    fields = tmp_path / "crew-fields.json"
    fields.write_text(json.dumps(CREW_FIELDS), "utf-8")
    with_fields = {"ATHENA_FIELDS": str(fields)}
    ns = _ns("fields")
    worded = {
        **CREW_RULE,
        "conditions": [{"field": "crew_size", "operator": "gt", "value": "twelve"}],
    }
    bad = _write_jsonl(tmp_path / "worded.jsonl", [worded])
    refused = athena(
        falkordb_dir, "ingest", str(bad), "--rules", "--namespace", ns, env=with_fields
    )
    error = _one_line_error(refused, 2, "ingest")
    assert f"{bad}:1" in error and "crew_size" in error and "'twelve'" in error
    # Without the setting crew_size is unknown: a warning, not a refusal.
    other = _ns("no-fields")
    loose = _ok(athena(falkordb_dir, "ingest", str(bad), "--rules", "--namespace", other))
    assert "not in the data dictionary: ['crew_size']" in loose

    good = _write_jsonl(tmp_path / "crew.jsonl", [CREW_RULE])
    written = _ok(
        athena(falkordb_dir, "ingest", str(good), "--rules", "--namespace", ns, env=with_fields)
    )
    assert "1 rule(s)" in written and "warning" not in written
    submission = tmp_path / "crew-of-15.json"
    submission.write_text(json.dumps({"product_type": "GL", "crew_size": 15}), "utf-8")
    args = ("decide", str(submission), "--namespace", ns, "--json")
    decided = json.loads(_ok(athena(falkordb_dir, *args, env=with_fields)))
    assert decided["decision"] == "refer"  # 15 > 12
    assert [r["rule_name"] for r in decided["cited_rules"]] == [CREW_RULE["rule_name"]]
    # The packaged dictionary has no crew_size: the field is set aside, nothing fires.
    plain = json.loads(_ok(athena(falkordb_dir, *args)))
    assert plain["decision"] == "approve" and plain["cited_rules"] == []
    assert any("crew_size" in note for note in plain["notes"])


# -- athena demo ----------------------------------------------------------------------


def test_demo_of_a_dataset_decides_as_the_dataset_expects_in_a_fresh_namespace(
    falkordb_dir: Path, dev_set: Path
) -> None:
    ns = _ns("demo")
    texts = len(_read_jsonl(dev_set / "knowledge.jsonl"))
    submissions = _read_jsonl(dev_set / "submissions.jsonl")
    args = ("demo", "--dataset", str(dev_set), "--limit", "3", "--namespace", ns)
    current = []
    for _ in range(2):  # the second run starts from an empty namespace again
        out = _ok(athena(falkordb_dir, *args, env={"COLUMNS": "200"}))
        flat = " ".join(out.replace("│", " ").split())
        assert flat.startswith(f"Ingesting {texts} knowledge texts into {ns} (offline mode)")
        for row in submissions[:3]:
            assert f"{row['id']}: {row['expected_decision']} (" in flat, row["id"]
        assert f"{submissions[3]['id']}:" not in flat  # --limit 3
        written = re.search(r"(\d+) rules written", flat)
        assert written, flat[:300]
        exported = json.loads(_ok(athena(falkordb_dir, "export", "--json", "--namespace", ns)))
        # (Two texts stating one rule are one rule with two sources: it counts once here.)
        assert 0 < exported["count"] <= int(written.group(1))
        current.append(sorted(r["rule_name"] for r in exported["rules"]))
    assert current[0] == current[1]


# -- athena review start | resume -----------------------------------------------------


def test_a_referral_paused_by_review_start_is_resumed_by_another_process(
    falkordb_dir: Path, dev_set: Path, tmp_path: Path
) -> None:
    ns = _ns("review")
    rules = _write_jsonl(
        tmp_path / "rules.jsonl", _read_jsonl(dev_set / "rules.jsonl")[:RULES_USED]
    )
    _ok(athena(falkordb_dir, "ingest", str(rules), "--rules", "--namespace", ns))
    rows = {s["id"]: s for s in _read_jsonl(dev_set / "submissions.jsonl")}
    referred, declined = rows["s001"], rows["s003"]
    assert (referred["expected_decision"], declined["expected_decision"]) == ("refer", "decline")
    path = tmp_path / "s001.json"
    path.write_text(json.dumps(referred["submission"]), "utf-8")

    paused = _ok(athena(falkordb_dir, "review", "start", str(path), "--namespace", ns))
    lines = paused.splitlines()
    assert lines[0] == "Paused for review: proposed refer"
    for name in referred["expected_rules"]:
        assert any(line.startswith(f"  - {name}: ") for line in lines), paused
    resume = re.fullmatch(r"Resume with: athena review resume (\S+) --decision \.\.\.", lines[-1])
    assert resume, paused
    thread = resume.group(1)

    note = "suppression system seen on site"
    args = ("review", "resume", thread, "--decision", "approve_with_conditions", "--note", note)
    done = _ok(athena(falkordb_dir, *args, "--namespace", ns))
    assert done.splitlines()[0] == f"Decision: approve_with_conditions  (thread {thread})"
    assert any(note in line for line in done.splitlines()[1:] if line.startswith("Note: "))
    again = athena(falkordb_dir, *args, "--namespace", ns)  # a thread is resumed once
    assert again.returncode == 2 and again.stdout == ""
    # One line: the checkpointer reads the project's own types back without a warning.
    assert (
        again.stderr.strip() == f"athena review: error: no paused review has thread id '{thread}'"
    )

    path.write_text(json.dumps(declined["submission"]), "utf-8")
    direct = _ok(athena(falkordb_dir, "review", "start", str(path), "--namespace", ns))
    assert direct.startswith("Decision: decline  (thread ")  # nothing to review


# -- athena chat | jobs | worker | sweep ----------------------------------------------

HEADCOUNT_RULE = {
    "rule_name": "Small Business Headcount Cap",
    "risk_factor": "Employee Count",
    "risk_category": "eligibility",
    "product_type": "BOP",
    "action": "decline",
    "outcome_description": "BOP accounts with more than 20 employees are declined.",
    "threshold": {"field": "employee_count", "operator": "gt", "value": 20, "unit": "employees"},
    "threshold_type": "hard",
    "conditions": [{"field": "employee_count", "operator": "gt", "value": 20}],
    "mitigants": [],
    "source": "BOP Manual",
    "source_type": "manual",
    "text_id": "manual-1",
}
QUESTION = "Can we write a BOP account with 22 employees?"
PRACTICE = "The 20 employee limit for BOP is really a guideline; we have approved up to 23."


def test_chat_jobs_worker_and_sweep_teach_the_agent_across_processes(
    falkordb_dir: Path, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex[:8]
    ns, queue, session = f"agent:up-chat-{tag}", f"test:up-{tag}", f"chat-{tag}"
    rules = _write_jsonl(tmp_path / "rules.jsonl", [HEADCOUNT_RULE])
    _ok(athena(falkordb_dir, "ingest", str(rules), "--rules", "--namespace", ns))
    name = HEADCOUNT_RULE["rule_name"]

    # Piped input: one message per line, blank lines skipped; the session ends at EOF.
    chat = ("chat", "--user", "jane", "--session", session, "--namespace", ns, "--queue", queue)
    talked = athena(falkordb_dir, *chat, stdin=f"{QUESTION}\n\n   \n{PRACTICE}\n")
    replies = _ok(talked)
    assert replies.startswith("Rules in memory on this:") and f"- {name}: decline" in replies
    assert any(line.startswith("Noted:") for line in replies.splitlines())
    assert f"job ingest:{session}: 2 user turn(s)" in talked.stderr

    listed = _ok(athena(falkordb_dir, "jobs", "--queue", queue)).splitlines()
    assert listed[0].startswith("pending 1 ") and "done 0" in listed[0]
    assert listed[1].startswith(f"pending   ingest:{session}  attempts 0")
    assert _ok(athena(falkordb_dir, "worker", "--drain", "--queue", queue)) == (
        "worker: 1 job(s) handled\n"
    )
    jobs = json.loads(_ok(athena(falkordb_dir, "jobs", "--queue", queue, "--json")))
    assert jobs["counts"]["done"] == 1 and jobs["counts"]["pending"] == 0
    [job] = jobs["jobs"]
    assert job["id"] == f"ingest:{session}" and job["result"]["rules"] == [name]
    assert [text for _, text in job["payload"]["turns"]] == [QUESTION, PRACTICE]

    submission = tmp_path / "22-employees.json"
    submission.write_text(json.dumps({"product_type": "BOP", "employee_count": 22}), "utf-8")
    decided = json.loads(
        _ok(athena(falkordb_dir, "decide", str(submission), "--namespace", ns, "--json"))
    )
    # Declined above 20 by the manual; approved up to 23 in practice: 22 is referred.
    assert decided["decision"] == "refer"
    [cited] = decided["cited_rules"]
    assert cited["rule_name"] == name and "23" in cited["why"]
    assert cited["sources"] == [HEADCOUNT_RULE["source"], f"Conversation {session}"]

    # A chat that dies (terminal closed) never ends its session: a sweep forms its memories.
    left = f"left-{tag}"
    process = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "chat", "--user", "ann", "--session", left,
         "--namespace", f"agent:up-empty-{tag}", "--queue", queue],
        cwd=REPO, env={**os.environ, "ATHENA_DATA_DIR": str(falkordb_dir)},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    guard = threading.Timer(120, process.kill)  # a hung chat fails the test, not the run
    guard.start()
    try:
        for message in ("Roof age over 25 years needs an inspection.", "Thanks, noted."):
            process.stdin.write(message + "\n")
            process.stdin.flush()
            reply = process.stdout.readline()  # (an empty namespace: one line a reply)
            assert reply.strip(), "the chat ended before replying"
    finally:
        guard.cancel()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    jobs = json.loads(_ok(athena(falkordb_dir, "jobs", "--queue", queue, "--json")))
    assert [j["id"] for j in jobs["jobs"]] == [f"ingest:{session}"]  # nothing queued for it
    swept = _ok(athena(falkordb_dir, "sweep", "--cold-after", "0")).splitlines()
    assert re.fullmatch(r"sweep: \d+ cold session\(s\) formed memories", swept[0])
    assert f"  {left}" in swept[1:]
    again = json.loads(_ok(athena(falkordb_dir, "sweep", "--cold-after", "0", "--json")))
    assert left not in again["formed"]  # formed once


# -- athena bench (last: it ran in the background meanwhile) ---------------------------


def test_bench_writes_its_report_files_holding_the_numbers_of_the_run(
    bench_run: BenchRun | None,
) -> None:
    if bench_run is None:
        pytest.skip("the dev dataset is not beside the checkout")
    code = bench_run.process.wait(timeout=600)
    printed, errors = bench_run.stdout.read_text(), bench_run.stderr.read_text()
    assert code == 0, f"exit {code}\n{printed}\n{errors[-3000:]}"
    out = bench_run.out
    assert printed == f"wrote {out / 'benchmarks.md'}\n"
    assert {p.name for p in out.iterdir()} == {
        "benchmarks.md",
        "benchmarks.json",
        "bench_latency.png",
    }
    assert (out / "bench_latency.png").read_bytes()[:8] == PNG_MAGIC
    assert server_pids(bench_run.data / "db") == []  # its server was stopped

    results = json.loads((out / "benchmarks.json").read_text("utf-8"))
    report = (out / "benchmarks.md").read_text("utf-8")
    assert f"Produced by `athena {' '.join(bench_run.args)}`" in report
    # Quality on the dataset: its queries and submissions, decided as the dataset says.
    queries = len(_read_jsonl(bench_run.dataset / "queries.jsonl"))
    subs = len(_read_jsonl(bench_run.dataset / "submissions.jsonl"))
    [measured] = results["datasets"]
    assert measured["path"] == str(bench_run.dataset)
    assert f"## Quality on `{bench_run.dataset}` (gold rules)" in report
    ours = measured["ours (BM25 index + HNSW, fused)"]
    assert ours["queries"] == queries and ours["failed"] == 0
    assert (
        f"| ours (BM25 index + HNSW, fused) | {queries} | {ours['recall_at_1']:.3f} | "
        f"{ours['recall_at_5']:.3f} | {ours['mrr']:.3f} |"
    ) in report
    assert measured["decisions"]["submissions"] == subs
    assert measured["decisions"]["accuracy"] == 1.0
    assert "Decisions: accuracy 1.0, cited-rule recall " in report
    assert f"over {subs} submissions" in report
    # Scale: one size, 50 synthetic rules, its row in the report.
    [size] = results["sizes"]
    assert size["size"] == 50 and size["write_path"]["cli_shared"]["rules"] == 50
    latencies = " / ".join(
        f"{size['check_risk_appetite'][k]:.1f}" for k in ("p50_ms", "p95_ms", "p99_ms")
    )
    row = f"| 50 | {size['ingest_rules_per_s']:.0f} | "
    [line] = [line for line in report.splitlines() if line.startswith(row)]
    assert f"| {latencies} |" in line
    assert size["ingest_rules_per_s"] > 0 and size["disk_mb"] > 0
