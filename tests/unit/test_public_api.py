import subprocess
import sys
from pathlib import Path


def test_importing_and_building_the_graphs_starts_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "athena"
    code = (
        "import memory, agents, tools\n"
        "from agents import build_ingestion_graph, build_underwriting_agent\n"
        "g = build_underwriting_agent(); i = build_ingestion_graph()\n"
        "assert 'submission' in g.get_input_jsonschema()['properties']\n"
        "assert 'texts' in i.get_input_jsonschema()['properties']\n"
        "assert 'namespace' in g.get_context_jsonschema()['properties']\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "ATHENA_DATA_DIR": str(data_dir)},
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert not data_dir.exists(), "importing or building a graph touched the database"
