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


def test_studio_forms_show_run_settings_not_injected_objects() -> None:
    from agents import build_ingestion_graph, build_underwriting_agent

    ingestion = build_ingestion_graph().get_context_jsonschema()["properties"]
    assert {"namespace", "mode", "llm_model", "extraction_model", "max_iterations"} <= set(
        ingestion
    )
    underwriting = build_underwriting_agent().get_context_jsonschema()["properties"]
    assert {"namespace", "mode", "model", "max_llm_attempts", "allow_refer_interrupt"} <= set(
        underwriting
    )
    for form in (ingestion, underwriting):
        assert not {"memory", "settings", "chat_model", "fields", "extractor"} & set(form)


def test_ingestion_mode_and_model_names_reach_the_model_factories() -> None:
    import pytest

    from agents import IngestionContext
    from agents.ingestion.nodes import mode_of, model_settings_of
    from memory import Settings

    keyed = Settings(OPENAI_API_KEY="sk-test", ATHENA_DATA_DIR="/tmp/unused")
    offline = IngestionContext(mode="offline", settings=keyed)
    assert mode_of(offline) == "offline"
    assert model_settings_of(offline).llm_enabled is False
    assert keyed.llm_enabled  # the run's own settings (and its memory's embedder) are untouched
    named = IngestionContext(llm_model="m-agent", extraction_model="m-extract", settings=keyed)
    assert (model_settings_of(named).llm_model, model_settings_of(named).extraction_model) == (
        "m-agent",
        "m-extract",
    )
    assert mode_of(named) == "llm"
    no_key = IngestionContext(
        mode="llm", settings=Settings(OPENAI_API_KEY="", ATHENA_DATA_DIR="/tmp/unused")
    )
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        model_settings_of(no_key)
    with pytest.raises(ValueError, match="auto, offline, llm"):
        IngestionContext(mode="fast")  # type: ignore[arg-type]
