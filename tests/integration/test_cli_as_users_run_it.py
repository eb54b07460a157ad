"""README commands run as a user runs them: `python -m agents.cli ...` in a subprocess.

Each test starts `athena` as its own process against a data dir of its own (a fresh
one with its own embedded server, or the session's server with a namespace of its
own) and checks what a user would see: the exit code, the lines printed, the files
written and their content, the state of memory afterwards. Expected values come from
the dataset files and the texts written here, not from the product.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import socket
import stat
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
VALIDATION_SET = REPO / "agents" / "data" / "validation"
RULES_INGESTED = 8  # the first rules of the dev set: gas stations, cooking, jewelry, property
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Variables of the caller's environment that would change what a fresh user sees.
_FOREIGN = ("FALKORDB_URL", "FALKORDB_READ_URLS", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def _env(data_dir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a user with only `ATHENA_DATA_DIR` (and `extra`) set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATHENA_") and k not in _FOREIGN}
    return {**env, "ATHENA_DATA_DIR": str(data_dir), **(extra or {})}


def _athena(
    data_dir: Path, *args: str, env: dict[str, str] | None = None, umask: int = -1
) -> subprocess.CompletedProcess[str]:
    """Run `athena ARGS...` as a user would, from the repo root."""
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=REPO,
        env=_env(data_dir, env),
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
        umask=umask,
    )


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    """The stdout of a command that must have succeeded."""
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _ns(label: str) -> str:
    return f"agent:u-{label}-{uuid.uuid4().hex[:8]}"


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


@dataclass(frozen=True)
class Ingested:
    """A namespace on the session's server holding the first dev-set rules."""

    data_dir: Path
    namespace: str
    rules: list[dict[str, Any]]


@pytest.fixture(scope="module")
def ingested(
    falkordb_dir: Path, dev_set: Path, tmp_path_factory: pytest.TempPathFactory
) -> Ingested:
    """`athena ingest FILE --rules --namespace NS` of the dev set's first rules."""
    lines = (dev_set / "rules.jsonl").read_text("utf-8").splitlines()[:RULES_INGESTED]
    path = tmp_path_factory.mktemp("rules") / "some-rules.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    namespace = _ns("dev")
    out = _ok(_athena(falkordb_dir, "ingest", str(path), "--rules", "--namespace", namespace))
    assert f"offline ingestion into {namespace}:" in out
    assert f"{RULES_INGESTED} rule(s)" in out
    return Ingested(falkordb_dir, namespace, [json.loads(line) for line in lines])


# -- athena db start | status | stop --------------------------------------------------


def _alive(pid: int) -> bool:
    """True while process `pid` runs (a zombie waiting for its parent to reap it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return fields[0] not in ("Z", "X")


def _status(data_dir: Path) -> dict[str, Any]:
    done = _athena(data_dir, "db", "status", "--json")
    assert not done.stderr.strip(), done.stderr
    status: dict[str, Any] = json.loads(done.stdout)
    assert Path(status["data_dir"]) == data_dir.resolve()
    return status


def test_db_start_status_stop_and_start_again_on_a_fresh_data_dir(
    tmp_path: Path, dev_set: Path
) -> None:
    data = tmp_path / "db"
    try:
        assert _status(data)["running"] is False  # nothing was ever started here

        started = json.loads(_ok(_athena(data, "db", "start", "--json")))
        assert started["running"] is True and isinstance(started["pid"], int)
        assert _alive(started["pid"])
        sock = Path(started["socket_path"])
        assert sock.parent == data.resolve() and stat.S_ISSOCK(sock.stat().st_mode)
        assert started["aof_enabled"] is True  # README: persists with an append-only file
        assert _status(data)["pid"] == started["pid"]
        shown = _ok(_athena(data, "db", "status"))
        assert shown.startswith("FalkorDB running") and f"pid {started['pid']}" in shown
        # A second start is a no-op on the running server.
        assert json.loads(_ok(_athena(data, "db", "start", "--json")))["pid"] == started["pid"]

        # Something to find after a restart.
        rules = dev_set / "rules.jsonl"
        _ok(_athena(data, "ingest", str(rules), "--rules", "--namespace", "agent:db-test"))

        stopped = json.loads(_ok(_athena(data, "db", "stop", "--json")))
        assert stopped["running"] is False
        assert not _alive(started["pid"])
        assert _status(data)["running"] is False
        assert _athena(data, "db", "status").stdout.startswith("FalkorDB stopped")

        again = json.loads(_ok(_athena(data, "db", "start", "--json")))
        assert again["running"] is True and again["pid"] != started["pid"]
        # The data outlived the stop: every rule of the file is exported.
        exported = json.loads(_ok(_athena(data, "export", "--namespace", "agent:db-test")))
        expected = {r["rule_name"] for r in _read_jsonl(rules)}
        assert {r["rule_name"] for r in exported["rules"]} == expected
    finally:
        _athena(data, "db", "stop")
    assert _status(data)["running"] is False


def test_a_remote_server_is_not_started_or_stopped_and_its_password_never_shows(
    tmp_path: Path,
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    password = "s3cret-Passw0rd-xyz"
    remote = {"FALKORDB_URL": f"redis://:{password}@127.0.0.1:{port}"}
    stop = _athena(tmp_path / "d", "db", "stop", env=remote)
    assert stop.returncode == 2
    assert "managed elsewhere" in stop.stderr and f"redis://:***@127.0.0.1:{port}" in stop.stderr
    query = _athena(tmp_path / "d", "query", "gas station", env=remote)
    assert query.returncode == 1  # README: 1 when FalkorDB is unreachable
    assert query.stderr.startswith("athena query: error:")
    assert len(query.stderr.strip().splitlines()) == 1
    for done in (stop, query):
        assert password not in done.stdout + done.stderr
    assert not (tmp_path / "d").exists()  # no embedded server was started instead


# -- athena export -o FILE ------------------------------------------------------------


def _conditions(rule: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((c["field"], c["operator"], json.dumps(c["value"])) for c in rule["conditions"])


def test_export_to_a_file_holds_the_rules_that_were_ingested(
    ingested: Ingested, tmp_path: Path
) -> None:
    out = tmp_path / "rules.json"
    printed = _ok(
        _athena(ingested.data_dir, "export", "-o", str(out), "--namespace", ingested.namespace)
    )
    assert printed == f"wrote {RULES_INGESTED} rules of {ingested.namespace} to {out}\n"
    document = json.loads(out.read_text("utf-8"))
    assert document["namespace"] == ingested.namespace
    assert document["count"] == len(document["rules"]) == RULES_INGESTED
    exported = {r["rule_name"]: r for r in document["rules"]}
    assert set(exported) == {r["rule_name"] for r in ingested.rules}
    for given in ingested.rules:
        rule = exported[given["rule_name"]]
        for key in (
            "risk_factor",
            "product_type",
            "action",
            "outcome_description",
            "mitigants",
            "source",
            "source_type",
            "text_id",
            "threshold_type",
        ):
            assert rule[key] == given[key], (given["rule_name"], key)
        assert _conditions(rule) == _conditions(given), given["rule_name"]
        assert rule["valid_to"] is None and rule["valid_from"]  # current rules
        assert {(s["source"], s["text_id"]) for s in rule["sources"]} == {
            (given["source"], given["text_id"])
        }


def test_export_to_a_missing_folder_is_refused_and_writes_nothing(
    ingested: Ingested, tmp_path: Path
) -> None:
    out = tmp_path / "no-such-folder" / "rules.json"
    done = _athena(ingested.data_dir, "export", "-o", str(out), "--namespace", ingested.namespace)
    assert done.returncode == 2
    assert done.stderr.startswith("athena export: error:") and "does not exist" in done.stderr
    assert not out.parent.exists()


# -- athena visualize -o FILE.html | FILE.png ------------------------------------------


def test_visualize_writes_a_self_contained_html_page_naming_every_rule(
    ingested: Ingested, tmp_path: Path
) -> None:
    out = tmp_path / "graph.html"
    printed = _ok(
        _athena(ingested.data_dir, "visualize", "-o", str(out), "--namespace", ingested.namespace)
    )
    assert printed == f"wrote {out}\n"
    page = out.read_text("utf-8")
    assert page.lower().startswith("<!doctype html") and page.rstrip().endswith("</html>")
    assert ingested.namespace in page  # the default title
    for rule in ingested.rules:
        name = rule["rule_name"]
        assert name in page or html.escape(name) in page, name
    # Self-contained: nothing is fetched from elsewhere when the page is opened.
    assert not re.search(r"<script[^>]*\bsrc=", page, re.I)
    assert not re.search(r"<link\b", page, re.I)
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls


def test_visualize_writes_a_png_picture(ingested: Ingested, tmp_path: Path) -> None:
    out = tmp_path / "graph.png"
    printed = _ok(
        _athena(ingested.data_dir, "visualize", "-o", str(out), "--namespace", ingested.namespace)
    )
    assert printed == f"wrote {out}\n"
    data = out.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert data[12:16] == b"IHDR"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width >= 200 and height >= 200, (width, height)
    assert data.rstrip(b"\0")[-8:-4] == b"IEND"  # a whole picture, not a cut-off one


# -- athena ingest notes.txt notes.md (offline) ----------------------------------------

NOTES_TXT = (
    "Roofing contractors are declined for GL because of fall-from-height claims.\n"
    "Owing to the survey backlog, the company does not insure anything when the "
    "surveyor is away.\n"
    "Thanks for reading.\n"
)
NOTES_MD = (
    "# BOP size guidance\n\n"
    "BOP risks with more than 50 employees are referred to a senior underwriter.\n\n"
    "Owing to the audit backlog, the company will not write anything when the auditor "
    "is away.\n"
)
UNCOVERED = {
    "notes.txt": "Owing to the survey backlog, the company does not insure anything when the "
    "surveyor is away.",
    "notes.md": "Owing to the audit backlog, the company will not write anything when the "
    "auditor is away.",
}


@dataclass(frozen=True)
class NotesRun:
    data_dir: Path
    namespace: str
    done: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def notes_run(falkordb_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> NotesRun:
    """`athena ingest notes.txt notes.md` (offline: no OPENAI_API_KEY)."""
    folder = tmp_path_factory.mktemp("notes")
    (folder / "notes.txt").write_text(NOTES_TXT, "utf-8")
    (folder / "notes.md").write_text(NOTES_MD, "utf-8")
    namespace = _ns("notes")
    done = _athena(
        falkordb_dir,
        "ingest",
        str(folder / "notes.txt"),
        str(folder / "notes.md"),
        "--namespace",
        namespace,
    )
    return NotesRun(falkordb_dir, namespace, done)


def test_ingest_of_text_and_markdown_offline_writes_rules_and_lists_uncovered_sentences(
    notes_run: NotesRun,
) -> None:
    out = _ok(notes_run.done)
    # (The report follows a blank line: the progress bar's, also when stdout is no terminal.)
    first = next(line for line in out.splitlines() if line.strip())
    assert first.startswith(f"offline ingestion into {notes_run.namespace}: 2 text(s), 2 rule(s)")
    assert f"  {len(UNCOVERED)} sentence(s) read like rules but yielded none:" in out
    listed = [line for line in out.splitlines() if line.startswith("    [")]
    assert sorted(listed) == sorted(f"    [{tid}] {s}" for tid, s in UNCOVERED.items())
    # The sentences that did yield rules, and the one that is no rule, are not listed.
    assert "Roofing" not in "\n".join(listed) and "50 employees" not in "\n".join(listed)
    assert "Thanks for reading" not in out

    exported = json.loads(
        _ok(_athena(notes_run.data_dir, "export", "--json", "--namespace", notes_run.namespace))
    )
    rules = {r["text_id"]: r for r in exported["rules"]}
    assert exported["count"] == 2 and set(rules) == {"notes.txt", "notes.md"}
    roofing, size = rules["notes.txt"], rules["notes.md"]
    assert (roofing["product_type"], roofing["action"]) == ("GL", "decline")
    assert _conditions(roofing) == [("occupancy", "eq", '"roofing contractor"')]
    assert (size["product_type"], size["action"]) == ("BOP", "refer")
    assert _conditions(size) == [("employee_count", "gt", "50")]
    assert {roofing["source"], size["source"]} == {"notes.txt", "notes.md"}


def test_an_offline_ingest_reports_no_model_request(notes_run: NotesRun) -> None:
    out = _ok(notes_run.done)
    assert "gpt-4o-mini" not in out and "estimated cost" not in out


# -- --config FILE ------------------------------------------------------------------


def test_a_config_file_sets_the_namespace_with_variables_expanded(
    ingested: Ingested, tmp_path: Path
) -> None:
    config = tmp_path / "athena.yaml"
    config.write_text("namespace: ${MY_TEAM_NAMESPACE}\nindex_snapshots: false\n", "utf-8")
    env = {"MY_TEAM_NAMESPACE": ingested.namespace}
    by_flag = json.loads(
        _ok(_athena(ingested.data_dir, "export", "--json", "--config", str(config), env=env))
    )
    assert by_flag["namespace"] == ingested.namespace and by_flag["count"] == RULES_INGESTED
    # The same file through ATHENA_CONFIG; `${VAR:-default}` takes its default when unset.
    config.write_text(f"namespace: ${{UNSET_TEAM_NAMESPACE:-{ingested.namespace}}}\n", "utf-8")
    by_env = json.loads(
        _ok(_athena(ingested.data_dir, "export", "--json", env={"ATHENA_CONFIG": str(config)}))
    )
    assert by_env["namespace"] == ingested.namespace and by_env["count"] == RULES_INGESTED
    # Without the file the default namespace (empty here) is used: the file did the work.
    plain = json.loads(_ok(_athena(ingested.data_dir, "export", "--json")))
    assert plain["namespace"] == "agent:athena"


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("namespace: agent:x\nnot_a_setting: 3\n", "not_a_setting"),
        ("change_log_keep: 0\n", "change_log_keep"),
        ("namespace: ${SURELY_UNSET_ATHENA_VAR}\n", "SURELY_UNSET_ATHENA_VAR"),
        ("namespace: [unclosed\n", "cannot read settings file"),
        ("- a list\n- not a mapping\n", "mapping"),
        (None, "No such file"),
    ],
    ids=["unknown-key", "bad-value", "unset-variable", "bad-yaml", "not-a-mapping", "missing"],
)
def test_a_bad_config_file_exits_2_with_one_line_naming_the_problem(
    tmp_path: Path, content: str | None, named: str
) -> None:
    config = tmp_path / "bad.yaml"
    if content is not None:
        config.write_text(content, "utf-8")
    done = _athena(tmp_path / "data", "export", "--config", str(config))
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("athena export: error:"), done.stderr
    assert named in lines[0] and "Traceback" not in done.stderr
    if named not in ("change_log_keep", "SURELY_UNSET_ATHENA_VAR"):  # those name the key only
        assert str(config) in lines[0]
    assert not (tmp_path / "data").exists()  # refused before any server was started


# -- -v ---------------------------------------------------------------------------


def test_an_error_is_one_line_and_v_adds_the_traceback(ingested: Ingested) -> None:
    args = ("trace", "Gas Station", "--product-type", "NOPE", "--namespace", ingested.namespace)
    message = "athena trace: error: unknown product type 'NOPE'"
    quiet = _athena(ingested.data_dir, *args)
    assert quiet.returncode == 2 and quiet.stdout == ""
    assert quiet.stderr.count("\n") == 1 and quiet.stderr.startswith(message)
    verbose = _athena(ingested.data_dir, "-v", *args)
    assert verbose.returncode == 2 and verbose.stdout == ""
    assert "Traceback (most recent call last):" in verbose.stderr
    assert "ValueError: unknown product type 'NOPE'" in verbose.stderr
    assert verbose.stderr.rstrip().splitlines()[-1].startswith(message)


# -- human output of query and trace --------------------------------------------------


def _ranked(out: str) -> list[str]:
    """The rule names of `athena query`'s lines " 1. NAME  (score 0.123)"."""
    return re.findall(r"^\s*\d+\. (.+?)  \(score \d\.\d{3}\)$", out, re.M)


def test_query_prints_the_expected_rules_by_name(ingested: Ingested, dev_set: Path) -> None:
    names = {r["rule_name"] for r in ingested.rules}
    queries = [q for q in _read_jsonl(dev_set / "queries.jsonl") if set(q["expected"]) <= names][:3]
    assert len(queries) == 3
    for q in queries:
        args = ["query", q["query"], "--namespace", ingested.namespace, "--limit", "5"]
        if q["product_type"]:
            args += ["--product-type", q["product_type"]]
        ranked = _ranked(_ok(_athena(ingested.data_dir, *args)))
        assert ranked and set(ranked) <= names, ranked
        assert set(q["expected"]) <= set(ranked), (q, ranked)
        if q["product_type"] and len(q["expected"]) == 1:
            assert ranked[0] == q["expected"][0], (q, ranked)
    empty = _ok(_athena(ingested.data_dir, "query", "gas station", "--namespace", _ns("empty")))
    assert empty == "no matching rules\n"


def test_trace_prints_each_path_of_the_risk_with_its_rule_mitigants_and_source(
    ingested: Ingested,
) -> None:
    risk = "Gas Station"
    own = [r for r in ingested.rules if r["risk_factor"] == risk]
    assert len(own) == 2  # one LRO, one BOP rule in the dev set
    out = _ok(_athena(ingested.data_dir, "trace", risk, "--namespace", ingested.namespace))
    heads = [line for line in out.splitlines() if line.startswith("- ")]
    # The rules the risk factor itself triggers come first.
    assert sorted(heads[: len(own)]) == sorted(
        f"- {risk} -> {r['rule_name']} -> {r['action'].capitalize()}  "
        f"[{r['product_type']}, {r['action']}]"
        for r in own
    )
    for r in own:
        block = out.split(f"-> {r['rule_name']} ->", 1)[1].split("\n- ", 1)[0]
        assert f"sources: {r['source']} ({r['source_type']})" in block
        assert f"mitigants: {'; '.join(r['mitigants']) or 'none'}" in block

    lro = next(r for r in own if r["product_type"] == "LRO")
    other = next(r for r in own if r["product_type"] != "LRO")
    only = _ok(
        _athena(
            ingested.data_dir,
            "trace",
            risk,
            "--product-type",
            "LRO",
            "--history",
            "--namespace",
            ingested.namespace,
        )
    )
    assert f"-> {lro['rule_name']} ->" in only and other["rule_name"] not in only
    assert f"History of {lro['rule_name']}:" in only
    assert re.search(rf"-> now: {lro['action']} when .*\[texts: {lro['text_id']}\]", only)


# -- ATHENA_INDEX_SNAPSHOTS -------------------------------------------------------------


def test_index_snapshots_follow_the_setting(falkordb_dir: Path, dev_set: Path) -> None:
    from memory import Namespace

    namespace = _ns("snap")
    group = Namespace.parse(namespace).group_id

    def folders() -> list[Path]:
        return list((falkordb_dir / "indexes").glob(f"*/{group}/*.snap"))

    off = {"ATHENA_INDEX_SNAPSHOTS": "false"}
    rules = dev_set / "rules.jsonl"
    _ok(_athena(falkordb_dir, "ingest", str(rules), "--rules", "--namespace", namespace, env=off))
    query = ("query", "gas station", "--product-type", "LRO", "--namespace", namespace)
    assert "Gas Station Auto-Refer" in _ok(_athena(falkordb_dir, *query, env=off))
    assert folders() == []
    assert "Gas Station Auto-Refer" in _ok(_athena(falkordb_dir, *query))
    saved = folders()
    assert saved, "a query with the default settings saved no index snapshot"
    assert all(p.stat().st_size > 0 for p in saved)


# -- 0600 --------------------------------------------------------------------------


@contextlib.contextmanager
def _mcp_http(data: Path) -> Iterator[subprocess.Popen[bytes]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "mcp", "--http", "--port", str(port)],
        cwd=REPO,
        env=_env(data),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        umask=0o022,
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_every_file_in_the_data_dir_is_owner_only(tmp_path: Path, dev_set: Path) -> None:
    """README: every file in the data dir (AOF, log, checkpoints, MCP token) is 0600."""
    data = tmp_path / "d"
    loose = 0o022  # a user's usual umask: files created without care would be 0644
    try:
        _ok(_athena(data, "db", "start", umask=loose))
        rules = dev_set / "rules.jsonl"
        _ok(_athena(data, "ingest", str(rules), "--rules", "--namespace", "agent:m", umask=loose))
        _ok(_athena(data, "query", "gas station", "--namespace", "agent:m", umask=loose))
        submission = tmp_path / "s001.json"
        first = _read_jsonl(dev_set / "submissions.jsonl")[0]
        submission.write_text(json.dumps(first["submission"]), "utf-8")
        review = _athena(
            data, "review", "start", str(submission), "--namespace", "agent:m", umask=loose
        )
        _ok(review)
        with _mcp_http(data):
            deadline = time.monotonic() + 60
            while not (data / "mcp-token").is_file():
                assert time.monotonic() < deadline, "athena mcp --http wrote no token"
                time.sleep(0.1)
    finally:
        _ok(_athena(data, "db", "stop", umask=loose))  # compacts the append-only file
    files = [p for p in data.rglob("*") if p.is_file() and not p.is_symlink()]
    names = {p.name for p in files}
    assert {"falkordb.log", "checkpoints.sqlite", "mcp-token"} <= names, names
    assert any(p.suffix == ".aof" for p in files) and any(p.suffix == ".snap" for p in files)
    loose_files = {
        str(p.relative_to(data)): oct(p.stat().st_mode & 0o777)
        for p in files
        if p.stat().st_mode & 0o077
    }
    assert loose_files == {}
    folders = [data, *(p for p in data.rglob("*") if p.is_dir())]
    loose_folders = {
        str(p): oct(p.stat().st_mode & 0o777) for p in folders if p.stat().st_mode & 0o077
    }
    assert loose_folders == {}


# -- athena eval DIR DIR --mode both --------------------------------------------------


def test_eval_of_two_datasets_in_both_modes_prints_them_side_by_side(
    falkordb_dir: Path, dev_set: Path
) -> None:
    out = _ok(_athena(falkordb_dir, "eval", str(dev_set), str(VALIDATION_SET), "--mode", "both"))
    sets = {"dev": dev_set, "validation": VALIDATION_SET}
    columns = [f"{name} ({mode})" for name in sets for mode in ("gold", "extract")]
    assert f"| | {' | '.join(columns)} |" in out
    table = [line for line in out.splitlines() if line.startswith("| ")]
    for row in (
        "extraction precision / recall",
        "decision accuracy",
        "cited-rule recall",
        "retrieval recall@1 / recall@5 / MRR",
    ):
        [line] = [t for t in table if t.startswith(f"| {row} |")]
        assert len(line.strip("|").split("|")) == 1 + len(columns), line

    # Per dataset and mode: the counts printed are the dataset's own.
    blocks = {b.split("  namespace ")[0]: b for b in ("\n" + out).split("\nDataset ")}
    for folder in sets.values():
        submissions = _read_jsonl(folder / "submissions.jsonl")
        expected = Counter(s["expected_decision"] for s in submissions)
        queries = len(_read_jsonl(folder / "queries.jsonl"))
        for mode in ("gold", "extract"):
            block = blocks[f"{folder}  mode {mode}"]
            assert f"Retrieval ({queries} queries)" in block
            assert f"Decisions ({len(submissions)} submissions)" in block
            if mode == "gold":
                rules = len(_read_jsonl(folder / "rules.jsonl"))
                assert f"Ingestion: {rules} rules written" in block
            # Each confusion-table row adds up to the submissions expecting that decision
            # (the table cuts its labels to 19 characters).
            rows = re.findall(r"^  ([a-z_]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", block, re.M)
            totals = {label: sum(map(int, counts)) for label, *counts in rows}
            assert {d[:19]: n for d, n in expected.items()} == totals, (folder, mode)
