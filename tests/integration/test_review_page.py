"""The review page in a real browser: `athena ui` served, Debian's chromium driven by Playwright.

One server over the consolidation dev set (claims ingested with their texts); the
tests walk it as a reviewer does and check that every request the page makes stays
on the server. With ATHENA_UI_SCREENSHOTS=DIR each page is saved there as a PNG.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from tests.processes import ROOT, athena

pytestmark = pytest.mark.integration
playwright_api = pytest.importorskip("playwright.sync_api")

DEV = ROOT.parent / "shared" / "datasets" / "consolidation" / "dev"
FIELDS = str(DEV / "fields.json")
TOKEN = "review-page-token-0123456789"
SHOTS = os.environ.get("ATHENA_UI_SCREENSHOTS")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ok(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout) if done.stdout.strip().startswith(("{", "[")) else done.stdout


class Site:
    """The served page and what the tests compare it with."""

    def __init__(self, url: str, data_dir: Path, namespace: str) -> None:
        self.url = url
        self.data_dir = data_dir
        self.namespace = namespace

    def cli(self, *args: str) -> Any:
        """Run `athena` on the same memory, as a user would beside the page."""
        return ok(athena(self.data_dir, *args, "--namespace", self.namespace, "--fields", FIELDS))


@pytest.fixture(scope="module")
def site(falkordb_dir: Path) -> Iterator[Site]:
    """`athena ui` over a namespace holding the dev set's claims and texts."""
    namespace = f"agent:ui{os.getpid()}"
    done = athena(
        falkordb_dir,
        "ingest",
        str(DEV / "claims.jsonl"),
        "--rules",
        "--texts",
        str(DEV / "knowledge.jsonl"),
        "--namespace",
        namespace,
        "--fields",
        FIELDS,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    port = _free_port()
    env = {**os.environ, "ATHENA_DATA_DIR": str(falkordb_dir), "ATHENA_MCP_TOKEN": TOKEN}
    server = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "ui", "--port", str(port)]
        + ["--namespace", namespace, "--fields", FIELDS],
        env=env,
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            time.sleep(0.2)
    try:
        yield Site(url, falkordb_dir, namespace)
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless chromium (Debian's package) under Playwright."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    assert executable, "chromium is not installed (.ci/run installs it with apt)"
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, site: Site) -> Iterator[Any]:
    """A fresh page; every request it makes must go to the served address."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    hosts: list[str] = []
    tab.on("request", lambda request: hosts.append(urlsplit(request.url).netloc or "data:"))
    yield tab
    context.close()
    served = urlsplit(site.url).netloc
    assert hosts, "the page made no request"
    assert set(hosts) <= {served, "data:"}, f"requests left the machine: {set(hosts)}"


def shot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def rule_url(site: Site, name: str) -> str:
    return f"{site.url}/rules/{quote(name, safe='')}"


def test_rules_search_and_filters(page: Any, site: Site) -> None:
    exported = site.cli("export", "--json")
    names = {r["rule_name"] for r in exported["rules"]}
    page.goto(site.url + "/")
    shot(page, "rules")
    listed = page.locator("a.rule-link").all_inner_texts()
    assert set(listed) == names

    page.fill("#q", "square feet building area")
    page.click("#apply")
    found = page.locator("a.rule-link").all_inner_texts()
    assert found and all(n in names for n in found)
    square = {r["rule_name"] for r in exported["rules"] if "square_feet" in json.dumps(r)}
    assert found[0] in square, found

    conflicts = site.cli("conflicts", "--json")
    in_conflict = {n for c in conflicts for n in c["rules"]}
    page.goto(site.url + "/?conflict=1")
    assert set(page.locator("a.rule-link").all_inner_texts()) == in_conflict

    page.goto(site.url + "/")
    page.select_option("#f-action", "decline")
    page.click("#apply")
    declines = {r["rule_name"] for r in exported["rules"] if r["action"] == "decline"}
    assert set(page.locator("a.rule-link").all_inner_texts()) == declines


def test_rule_page_highlights_its_source_sentence(page: Any, site: Site) -> None:
    exported = site.cli("export", "--json")
    rule = next(
        r for r in exported["rules"] if r.get("threshold") and len(r.get("sources") or []) >= 2
    )
    page.goto(rule_url(site, rule["rule_name"]))
    shot(page, "rule")
    assert page.inner_text("#rule-name") == rule["rule_name"]
    value = rule["threshold"]["value"]
    marked = " ".join(page.locator("#sources mark").all_inner_texts())
    assert f"{value:,}".replace(",", "") in marked.replace(",", ""), marked
    sources = page.locator("#sources article").count()
    assert sources == len({s.get("text_id") or s["source"] for s in rule["sources"]})
    versions = page.locator("#history .timeline li").count()
    history = site.cli("trace", rule["risk_factor"], "--history", "--json")["history"]
    assert versions == len(history[rule["rule_name"]])


def test_focused_graph_clicks_through_to_the_rule(page: Any, site: Site) -> None:
    exported = site.cli("export", "--json")
    rule = exported["rules"][0]
    page.goto(f"{site.url}/graph?risk={quote(rule['risk_factor'])}")
    page.wait_for_function("window.athenaGraph && window.athenaGraph.nodes().length > 0")
    shot(page, "graph")
    position = page.evaluate(
        "(name) => { const n = window.athenaGraph.nodes().filter(n => n.data('rule') === name)[0];"
        " const p = n.renderedPosition(); const box = document.getElementById('graph')"
        ".getBoundingClientRect(); return [box.left + p.x, box.top + p.y]; }",
        rule["rule_name"],
    )
    page.mouse.click(*position)
    page.wait_for_url(rule_url(site, rule["rule_name"]))
    assert page.inner_text("#rule-name") == rule["rule_name"]


def test_unknown_rule_and_bad_submission_get_a_clear_message(page: Any, site: Site) -> None:
    page.goto(rule_url(site, "No Such Rule"))
    assert "no rule named 'No Such Rule'" in page.inner_text("#problem")
    page.goto(site.url + "/decide")
    page.fill("#submission", '{"employee_count": "many"')
    page.click("#decide")
    assert "not JSON" in page.inner_text("#problem")


def test_write_without_the_token_is_refused_and_changes_nothing(page: Any, site: Site) -> None:
    before = site.cli("export", "--json")
    name = before["rules"][0]["rule_name"]
    page.goto(site.url + "/review")
    assert page.locator("#read-only").count() == 1
    refused = page.request.post(
        site.url + "/review",
        form={"rule_name": name, "action": "reject", "who": "Mallory", "why": "forged"},
    )
    assert refused.status == 403
    assert "read-only without the token" in refused.text()
    forged = page.request.post(
        site.url + "/review",
        form={"rule_name": name, "action": "reject", "who": "M", "why": "x"},
        headers={"Authorization": "Bearer wrong-token-000000000000", "Origin": site.url},
    )
    assert forged.status == 403
    assert site.cli("export", "--json") == before


def sign_in(page: Any, site: Site) -> None:
    page.goto(site.url + "/signin?next=/review")
    page.fill("#token", TOKEN)
    page.click("#signin")
    page.wait_for_url(site.url + "/review")


def test_resolving_a_conflict_writes_a_reviewed_version(page: Any, site: Site) -> None:
    conflicts = site.cli("conflicts", "--json")
    assert conflicts, "the dev set has open conflicts"
    sign_in(page, site)
    shot(page, "review")
    first = page.locator("article.conflict").first
    kept = first.locator(".side h4 a").first.inner_text()
    other = first.locator(".side h4 a").nth(1).inner_text()
    form = first.locator(".side").first.locator("form.accept-form")
    form.locator("input[name=who]").fill("Dana Reviewer")
    form.locator("input[name=why]").fill("the manual governs at the desk")
    form.locator("button").click()
    page.wait_for_url(rule_url(site, kept) + "#history")
    newest = page.locator("#history .timeline li").first.inner_text()
    assert "Review by Dana Reviewer" in newest
    assert "Dana Reviewer accepted" in page.inner_text("#sources")
    after = site.cli("conflicts", "--json")
    assert len(after) == len(conflicts) - 1
    current = {r["rule_name"] for r in site.cli("export", "--json")["rules"]}
    assert kept in current and other not in current


def decided_now(site: Site) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The dev set's submissions with the CLI's decision on each by today's rules."""
    lines = [json.loads(x) for x in (DEV / "submissions.jsonl").read_text().splitlines() if x]
    path = site.data_dir.parent / "ui-submissions.jsonl"
    path.write_text("".join(json.dumps(s["submission"]) + "\n" for s in lines))
    done = athena(
        site.data_dir, "decide", "--batch", str(path), "--json", "--namespace", site.namespace
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(x) for x in done.stdout.splitlines() if x.strip()]
    return [(s["submission"], a) for s, a in zip(lines, answers, strict=True)]


def submit(page: Any, site: Site, submission: dict[str, Any], *, upload: bool = False) -> None:
    """Decide a submission on the page: pasted as JSON, or uploaded as a file."""
    page.goto(site.url + "/decide")
    if upload:
        path = site.data_dir.parent / "ui-upload.json"
        path.write_text(json.dumps(submission))
        page.set_input_files("#submission_file", str(path))
    else:
        page.fill("#submission", json.dumps(submission))
    page.click("#decide")
    page.wait_for_url(f"{site.url}/decide/*")


def test_decide_a_submission_and_resume_a_referral(page: Any, site: Site) -> None:
    decided = decided_now(site)
    submission, expected = next((s, a) for s, a in decided if a["decision"] != "refer")
    page.goto(site.url + "/decide")
    shot(page, "decide")
    submit(page, site, submission)
    assert page.inner_text("#decision") == expected["decision"].replace("_", " ")
    cited = set(page.locator("#cited a").all_inner_texts())
    assert cited == {c["rule_name"] for c in expected["cited_rules"]}
    assert page.locator("#reasoning li").count() == len(expected["reasoning_chain"])
    shot(page, "decision")
    if cited:
        page.locator("#cited a").first.click()
        assert page.inner_text("#rule-name") in cited

    submission, expected = next((s, a) for s, a in decided if a["decision"] == "refer")
    submit(page, site, submission, upload=True)
    assert page.inner_text("#proposed") == "refer"
    cited = set(page.locator("#cited a").all_inner_texts())
    assert cited == {c["rule_name"] for c in expected["cited_rules"]}
    shot(page, "referral")
    assert page.locator("#resume").is_disabled()  # not signed in
    thread = page.url
    sign_in(page, site)
    page.goto(thread)
    page.select_option("#resume-decision", "decline")
    page.fill("#resume-note", "too large for the desk")
    page.click("#resume")
    page.wait_for_selector("#decision")
    assert page.inner_text("#decision") == "decline"
    assert any("too large for the desk" in n for n in page.locator(".notice").all_inner_texts())


def test_editing_a_rule_adds_a_version_with_the_new_limit(page: Any, site: Site) -> None:
    exported = site.cli("export", "--json")
    rule = next(
        r
        for r in exported["rules"]
        if r.get("threshold")
        and isinstance(r["threshold"]["value"], int | float)
        and not r.get("conflicts")
    )
    sign_in(page, site)
    page.goto(rule_url(site, rule["rule_name"]) + "/edit")
    shot(page, "edit")
    index = next(
        i for i, c in enumerate(rule["conditions"]) if c["field"] == rule["threshold"]["field"]
    )
    raised = rule["threshold"]["value"] * 2
    page.fill(f"#value_{index}", str(raised))
    page.fill("#who", "Lee Manager")
    page.fill("#why", "appetite widened")
    page.click("#save")
    page.wait_for_url(rule_url(site, rule["rule_name"]) + "#history")
    newest = page.locator("#history .timeline li").first.inner_text()
    assert "Review by Lee Manager" in newest
    after = {r["rule_name"]: r for r in site.cli("export", "--json")["rules"]}
    assert after[rule["rule_name"]]["threshold"]["value"] == raised
    page.goto(rule_url(site, rule["rule_name"]) + "/edit")
    page.fill(f"#value_{index}", "lots")
    page.fill("#who", "Lee Manager")
    page.fill("#why", "typo")
    page.click("#save")
    assert "must be a number" in page.inner_text("#problem")
    again = {r["rule_name"]: r for r in site.cli("export", "--json")["rules"]}
    assert again[rule["rule_name"]] == after[rule["rule_name"]]
