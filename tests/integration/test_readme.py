"""The README's Python snippets run as written (the offline ones, in order, one namespace)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Snippets that need a model key are not run offline.
NEEDS_KEY = ("ChatOpenAI", "OPENAI_API_KEY")


def _snippets() -> list[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    return [b for b in blocks if not any(k in b for k in NEEDS_KEY)]


def test_the_readme_has_offline_python_snippets() -> None:
    assert len(_snippets()) >= 4


def test_the_readme_python_snippets_run_and_print_what_the_readme_says(
    falkordb_dir: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "ATHENA_DATA_DIR": str(falkordb_dir)}
    env.pop("OPENAI_API_KEY", None)
    outputs = []
    for i, code in enumerate(_snippets()):
        script = tmp_path / f"snippet_{i}.py"
        script.write_text(code)
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            env={**env, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, f"README snippet {i + 1} failed:\n{done.stderr[-2000:]}"
        outputs.append(done.stdout)
    memory_search, ingestion, runtime, langchain = outputs[:4]
    assert "Gas stations are referred" in memory_search
    assert "rule(s) written" in ingestion
    assert runtime.startswith("decline ['GL Roofing Contractor Decline']")
    assert "GL Roofing Contractor Decline" in langchain
