"""The review page (`athena ui`) at scale: every page's latency over 10k rules.

Target (the issue): each page answers in <= 200 ms with 10,000 rules stored.

In a fresh embedded database (a temp ``ATHENA_DATA_DIR``):

1. `N` synthetic rules (`bench.synthetic.generate_rules`, the packaged data
   dictionary) are loaded with ``athena ingest FILE --rules --namespace NS`` (the CLI,
   a subprocess), then the consolidation dev set's claims with their texts into the
   same namespace (``athena ingest claims.jsonl --rules --texts knowledge.jsonl
   --fields fields.json``): conflicts, sources with real text, versions;
2. ``athena ui --port P --namespace NS --fields <the set's fields.json>`` is started
   as a long-running subprocess (``ATHENA_MCP_TOKEN`` set) and waited for;
3. each page is requested with one keep-alive `httpx.Client`: the first request
   (cold) and then `--warm` requests (default 20); p50 / p95 / max ms and the status
   codes per page. ``POST /decide`` (a submission of the set as JSON) answers 303 to
   ``/decide/<thread>``; the POST and the GET of that page are timed apart;
4. live: while the server runs, one new rule is ingested through the CLI and
   ``/?q=<its name>`` is polled until it lists the rule.

``python -m bench.ui [--rules 10000] [--json FILE] [--profile TOP]`` prints a
Markdown table. A page is on target when its warm p95 is <= 200 ms. ``--profile``
then runs each page over target in process (`agents.ui.create_app` on the same data
dir, requests through `httpx.ASGITransport` in this thread, so cProfile sees the
handlers) and prints the top entries.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import html
import io
import json
import os
import pstats
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from agents.eval_run import percentile
from agents.jsonl import read_objects
from bench.consolidation import _athena, _env, cli_ingest, settle
from bench.synthetic import generate_rules, write_rules_file
from bench.writepath import vector_ready
from memory import GraphMemory, Namespace, Settings
from schemas.fields import load_data_dictionary
from schemas.rules import ExtractedRule

DEV_SET = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "consolidation" / "dev"
TARGET_MS = 200.0
NAMESPACE = "agent:bench-ui"
TOKEN = "bench-ui-token-0123456789abcdef"  # noqa: S105 - a throwaway token for a temp database
LIVE_NAME = "Bench Live Probe Kiosk Employee Count Rule"


@dataclass(frozen=True)
class Page:
    """One page to time: a label, the method, the path and (POST) the form."""

    label: str
    method: str
    path: str
    form: dict[str, str] | None = None


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(
    env: dict[str, str], port: int, ns: str, fields: Path, log: Path
) -> subprocess.Popen[bytes]:
    """``athena ui`` as a subprocess, its stderr into `log`."""
    argv = [*_athena(), "ui", "--port", str(port), "--namespace", ns, "--fields", str(fields)]
    with log.open("wb") as sink:
        return subprocess.Popen(
            argv,
            env={**env, "ATHENA_MCP_TOKEN": TOKEN},
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )


def wait_ready(
    server: subprocess.Popen[bytes], url: str, log: Path, limit_s: float = 120.0
) -> float:
    """Wait until the server answers a static file; return the seconds waited."""
    began = time.perf_counter()
    while time.perf_counter() - began < limit_s:
        if server.poll() is not None:
            raise RuntimeError(f"athena ui exited {server.returncode}: {log.read_text()[-2000:]}")
        try:
            if httpx.get(url + "/static/athena.css", timeout=2.0).status_code == 200:
                return time.perf_counter() - began
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"athena ui did not answer in {limit_s:.0f} s: {log.read_text()[-2000:]}")


def server_errors(log: Path) -> list[str]:
    """The distinct exception lines (the last line of each traceback) the server logged."""
    found: list[str] = []
    for line in log.read_text("utf-8", "replace").splitlines():
        if re.match(r"[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Refused)\b", line):
            if line.strip() not in found:
                found.append(line.strip())
    return found


def targets(exported: list[dict[str, Any]], synthetic: Sequence[ExtractedRule]) -> dict[str, str]:
    """Rules and a risk factor to show: a synthetic rule, a set rule with several sources."""
    names = {r.rule_name for r in synthetic}
    stored = {r["rule_name"] for r in exported}
    middle = next(r.rule_name for r in synthetic[len(synthetic) // 2 :] if r.rule_name in stored)
    dev = [r for r in exported if r["rule_name"] not in names]
    if not dev:
        raise RuntimeError("no rule of the consolidation set was exported")
    sourced = max(dev, key=lambda r: (len(r.get("sources") or []), r["rule_name"]))
    risks = Counter(r["risk_factor"] for r in exported)
    risk, count = risks.most_common(1)[0]
    return {
        "synthetic_rule": middle,
        "dev_rule": sourced["rule_name"],
        "dev_rule_sources": str(len(sourced.get("sources") or [])),
        "risk": risk,
        "risk_rules": str(count),
    }


def pages(chosen: dict[str, str], submission: dict[str, Any]) -> list[Page]:
    """The pages of the brief, in order."""

    def rule(name: str) -> str:
        return "/rules/" + quote(name, safe="")

    return [
        Page("/", "GET", "/"),
        Page("/?q=employee count 22", "GET", "/?" + urlencode({"q": "employee count 22"})),
        Page(
            "/?q=gas station&product_type=BOP",
            "GET",
            "/?" + urlencode({"q": "gas station", "product_type": "BOP"}),
        ),
        Page("/?action=decline", "GET", "/?action=decline"),
        Page("/?conflict=1", "GET", "/?conflict=1"),
        Page("/?page=100", "GET", "/?page=100"),
        Page("/rules/<synthetic rule>", "GET", rule(chosen["synthetic_rule"])),
        Page(
            f"/rules/<set rule, {chosen['dev_rule_sources']} sources>",
            "GET",
            rule(chosen["dev_rule"]),
        ),
        Page("/graph?rule=<set rule>", "GET", "/graph?" + urlencode({"rule": chosen["dev_rule"]})),
        Page(
            f"/graph?risk=<risk factor, {chosen['risk_rules']} rules>",
            "GET",
            "/graph?" + urlencode({"risk": chosen["risk"]}),
        ),
        Page("/review", "GET", "/review"),
        Page("/decide", "GET", "/decide"),
        Page("POST /decide", "POST", "/decide", {"submission": json.dumps(submission)}),
    ]


def _stats(cold: float, warm: Sequence[float], statuses: Counter[int], size: int) -> dict[str, Any]:
    return {
        "cold_ms": round(cold, 1),
        "p50_ms": percentile(warm, 50),
        "p95_ms": percentile(warm, 95),
        "max_ms": round(max(warm), 2) if warm else None,
        "warm": len(warm),
        "statuses": dict(sorted(statuses.items())),
        "bytes": size,
    }


def _timed(client: httpx.Client, page: Page) -> tuple[float, int, bytes, str | None]:
    """One request: ms, status (0: the connection failed), body and redirect target."""
    began = time.perf_counter()
    try:
        if page.method == "POST":
            response = client.post(page.path, data=page.form)
        else:
            response = client.get(page.path)
    except httpx.TransportError as exc:
        ms = (time.perf_counter() - began) * 1000.0
        return ms, 0, f"{type(exc).__name__}: {exc}".encode(), None
    ms = (time.perf_counter() - began) * 1000.0
    return ms, response.status_code, response.content, response.headers.get("location")


def time_pages(client: httpx.Client, todo: Sequence[Page], warm: int) -> dict[str, Any]:
    """Each page cold then `warm` times; a POST's redirect target is timed as its own row."""
    results: dict[str, Any] = {}
    for page in todo:
        failures: dict[str, str] = {}
        times: list[float] = []
        statuses: Counter[int] = Counter()
        follow: list[float] = []
        follow_statuses: Counter[int] = Counter()
        size = follow_size = 0
        load = os.getloadavg()[0]
        for _ in range(warm + 1):
            ms, status, body, location = _timed(client, page)
            times.append(ms)
            statuses[status] += 1
            size = len(body)
            if status == 0:
                failures.setdefault("page", body.decode())
            if page.method == "POST" and location:
                ms, status, body, _ = _timed(client, Page("redirect", "GET", location))
                if status == 0:
                    failures.setdefault("redirect", body.decode())
                follow.append(ms)
                follow_statuses[status] += 1
                follow_size = len(body)
        results[page.label] = {
            **_stats(times[0], times[1:], statuses, size),
            "load": load,
            "failed": failures.get("page"),
        }
        if follow:
            results["GET /decide/<thread> (after the POST)"] = {
                **_stats(follow[0], follow[1:], follow_statuses, follow_size),
                "load": load,
                "failed": failures.get("redirect"),
            }
    return results


def live_rule(like: ExtractedRule) -> ExtractedRule:
    """A rule like `like` that no stored rule states (an occupancy of its own)."""
    doc = like.model_dump(mode="json", exclude_none=True)
    for key in ("sources", "valid_from", "valid_to"):
        doc.pop(key, None)
    doc.update(
        rule_name=LIVE_NAME,
        risk_factor="Bench Live Probe Kiosk",
        action="refer",
        outcome_description="A bench live probe kiosk with more than 7 employees is referred.",
        text_id="bench-live-probe",
        source="Bench live probe",
        source_type="manual",
        conditions=[
            {"field": "occupancy", "operator": "eq", "value": "bench live probe kiosk"},
            {"field": "employee_count", "operator": "gt", "value": 7},
        ],
        threshold={"field": "employee_count", "operator": "gt", "value": 7, "unit": "employees"},
        threshold_type="hard",
        soft_limit=None,
        mitigants=[],
        mitigant_fields=[],
        data_fields=["occupancy", "employee_count"],
    )
    return ExtractedRule.model_validate(doc)


def measure_live(
    client: httpx.Client, env: dict[str, str], ns: str, rule: ExtractedRule, tmp: Path
) -> dict[str, Any]:
    """Ingest one rule through the CLI beside the server; poll ``/?q=<name>`` until it shows."""
    path = write_rules_file([rule], tmp / "live.jsonl")
    query = "/?" + urlencode({"q": LIVE_NAME})
    listed = f'class="rule-link">{html.escape(LIVE_NAME)}</a>'  # a row, not the search box
    if listed in client.get(query).text:
        raise RuntimeError(f"{LIVE_NAME!r} is listed before it is ingested")
    began = time.perf_counter()
    cli_ms, report = cli_ingest(env, [str(path), "--namespace", ns])
    written = time.perf_counter()
    polls = 0
    while time.perf_counter() - written < 60.0:
        polls += 1
        response = client.get(query)
        if listed in response.text:
            shown = time.perf_counter()
            return {
                "cli_ms": round(cli_ms, 1),
                "cli_ingest_s": report.get("seconds"),
                "after_cli_ms": round((shown - written) * 1000.0, 1),
                "from_start_ms": round((shown - began) * 1000.0, 1),
                "polls": polls,
                "last_poll_ms": round(float(response.elapsed.total_seconds()) * 1000.0, 1),
            }
        time.sleep(0.02)
    return {"cli_ms": round(cli_ms, 1), "after_cli_ms": None, "polls": polls}


async def _ready(settings: Settings, ns: str) -> dict[str, float]:
    """Wait for the namespace's vector index and for the server's background saves."""
    async with GraphMemory(settings) as memory:
        vector = await vector_ready(memory, Namespace.parse(ns))
        saved = await settle(memory)
    return {"vector_s": round(vector, 1), "settle_s": round(saved, 1)}


def export_rules(env: dict[str, str], ns: str) -> list[dict[str, Any]]:
    """``athena export --json``: the namespace's current rules."""
    done = subprocess.run(
        [*_athena(), "export", "--json", "--namespace", ns],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"athena export failed: {done.stderr.strip()[-800:]}")
    rules: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])["rules"]
    return rules


def _profile_top(profiler: cProfile.Profile, top: int) -> str:
    """The project's own functions by cumulative time, then everything by own time."""
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(r"/(agents|memory|schemas)/", top)
    out.write("\n--- by own time ---\n")
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


async def profile_pages(
    settings: Settings, ns: str, todo: Sequence[Page], rounds: int, top: int
) -> dict[str, str]:
    """Each page in process under cProfile (one unprofiled warm-up, then `rounds` requests)."""
    from agents.ui import create_app

    app = create_app(settings, namespace=ns, token=TOKEN)
    found: dict[str, str] = {}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://ui") as client:
            for page in todo:
                await _send(client, page)
                profiler = cProfile.Profile()
                began = time.perf_counter()
                profiler.enable()
                for _ in range(rounds):
                    await _send(client, page)
                profiler.disable()
                each = (time.perf_counter() - began) * 1000.0 / rounds
                found[page.label] = (
                    f"{rounds} requests in process, {each:.1f} ms each under cProfile\n"
                    + _profile_top(profiler, top)
                )
    return found


async def _send(client: httpx.AsyncClient, page: Page) -> httpx.Response:
    if page.method == "POST":
        return await client.post(page.path, data=page.form)
    return await client.get(page.path)


def run_bench(
    dataset: Path, size: int, data_dir: Path, warm: int, profile_top: int
) -> dict[str, Any]:
    """Every measurement of the module docstring; return the results."""
    packaged = load_data_dictionary()
    set_fields = dataset / "fields.json"
    env = _env(data_dir)
    results: dict[str, Any] = {
        "dataset": str(dataset),
        "stored_rules": size,
        "namespace": NAMESPACE,
        "cpus": os.cpu_count(),
        "load_at_start": os.getloadavg()[0],
    }
    settings = Settings(
        ATHENA_DATA_DIR=data_dir, FALKORDB_URL=None, OPENAI_API_KEY=None, ATHENA_FIELDS=set_fields
    )
    with tempfile.TemporaryDirectory(prefix="athena-ui-") as name:
        tmp = Path(name)
        synthetic = generate_rules(packaged, size)
        path = write_rules_file(synthetic, tmp / "synthetic.jsonl")
        ms, report = cli_ingest(env, [str(path), "--namespace", NAMESPACE])
        if report.get("failed_texts"):
            raise RuntimeError(f"loading the synthetic rules failed: {report['failed_texts'][:3]}")
        results["load_synthetic_s"] = round(ms / 1000.0, 1)
        claims = [str(dataset / "claims.jsonl"), "--texts", str(dataset / "knowledge.jsonl")]
        ms, report = cli_ingest(
            env, [*claims, "--namespace", NAMESPACE, "--fields", str(set_fields)]
        )
        if report.get("failed_texts"):
            raise RuntimeError(f"loading the set's claims failed: {report['failed_texts'][:3]}")
        results["load_set_s"] = round(ms / 1000.0, 1)
        results["ready"] = asyncio.run(_ready(settings, NAMESPACE))
        exported = export_rules(env, NAMESPACE)
        results["exported_rules"] = len(exported)
        chosen = targets(exported, synthetic)
        results["targets"] = chosen
        submission = read_objects(dataset / "submissions.jsonl")[0]["submission"]
        todo = pages(chosen, submission)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = tmp / "ui.log"
        server = start_server(env, port, NAMESPACE, set_fields, log)
        try:
            results["server_start_s"] = round(wait_ready(server, url, log), 1)
            with httpx.Client(base_url=url, timeout=120.0) as client:
                results["pages"] = time_pages(client, todo, warm)
                results["live"] = measure_live(client, env, NAMESPACE, live_rule(synthetic[0]), tmp)
        finally:
            server.terminate()
            server.wait(timeout=30)
            results["server_errors"] = server_errors(log)
            results["server_log_tail"] = log.read_text("utf-8", "replace")[-4000:]
        missed = [
            p
            for p in todo
            if (results["pages"][p.label]["p95_ms"] or 0) > TARGET_MS
            and not any(map(_failed, results["pages"][p.label]["statuses"]))
        ]
        if profile_top and missed:
            results["profiles"] = asyncio.run(
                profile_pages(settings, NAMESPACE, missed, 5, profile_top)
            )
    return results


def _ms(value: Any) -> str:
    return "-" if value is None else f"{value:.1f}"


def _failed(status: int) -> bool:
    """A server error, or no answer at all (status 0: the connection failed)."""
    return status == 0 or status >= 500


def _met(stats: dict[str, Any]) -> str:
    if any(map(_failed, stats["statuses"])):
        return "error"
    p50, p95 = stats["p50_ms"], stats["p95_ms"]
    if p95 is not None and p95 <= TARGET_MS:
        return "yes"
    return "p50 only" if p50 is not None and p50 <= TARGET_MS else "**no**"


def table(results: dict[str, Any]) -> str:
    """The results as Markdown: one row a page, then the live row."""
    size = results["stored_rules"]
    lines = [
        f"{size:,} synthetic rules + the set's claims ({results['exported_rules']:,} current "
        f"rules in `{results['namespace']}`); one keep-alive client; first request (cold), then "
        f"{next(iter(results['pages'].values()))['warm']} warm.",
        "",
        f"| page | cold ms | p50 ms | p95 ms | max ms | status | bytes | <= {TARGET_MS:.0f} ms "
        "(p95) | load |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, stats in results["pages"].items():
        codes = ", ".join(f"{code} x{n}" for code, n in stats["statuses"].items())
        lines.append(
            f"| `{label}` | {_ms(stats['cold_ms'])} | {_ms(stats['p50_ms'])} "
            f"| {_ms(stats['p95_ms'])} | {_ms(stats['max_ms'])} | {codes} | {stats['bytes']:,} "
            f"| {_met(stats)} | {stats['load']:.2f} |"
        )
    live = results["live"]
    lines += [
        "",
        f"Live: one new rule through `athena ingest` ({_ms(live['cli_ms'])} ms, a process) is "
        f"listed by `/?q=<its name>` {_ms(live.get('after_cli_ms'))} ms after the CLI exits "
        f"({_ms(live.get('from_start_ms'))} ms from its start; {live['polls']} polls).",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark in a fresh embedded database; print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.ui", description=__doc__)
    parser.add_argument("--dataset", type=Path, default=DEV_SET, help="a consolidation set")
    parser.add_argument("--rules", type=int, default=10_000, help="synthetic rules stored")
    parser.add_argument("--warm", type=int, default=20, help="warm requests per page")
    parser.add_argument("--data-dir", type=Path, help="database dir (default: a fresh temp dir)")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="TOP",
        help="profile pages over target in process; print the TOP entries",
    )
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    args = parser.parse_args(argv)
    from memory.backend.server import stop_server

    base = args.data_dir or Path(tempfile.mkdtemp(prefix="athena-bench-ui-"))
    data_dir = base / "db"
    try:
        results = run_bench(args.dataset, args.rules, data_dir, args.warm, args.profile)
    finally:
        stop_server(data_dir)
        if args.data_dir is None:
            shutil.rmtree(base, ignore_errors=True)
    results["command"] = "python -m bench.ui " + " ".join(sys.argv[1:])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    print(table(results))
    print("\ntargets:", json.dumps(results["targets"]))
    for line in results["server_errors"]:
        print("server error:", line)
    for label, text in results.get("profiles", {}).items():
        print(f"\n--- profile of {label} ---\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
