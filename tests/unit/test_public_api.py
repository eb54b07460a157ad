import subprocess
import sys
from pathlib import Path

import pytest


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
    from agents.ingestion.resolve import mode_of, model_settings_of
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


SURFACES = (
    "memory",
    "memory.model",
    "memory.backend",
    "memory.search",
    "memory.graph",
    "memory.sessions",
    "memory.underwriting",
)


@pytest.mark.parametrize("package", SURFACES)
def test_every_public_name_is_exported_and_every_exported_name_exists(package: str) -> None:
    # httpx's tests/test_exported_members.py: __all__ is the surface, kept exact.
    import importlib
    import types

    module = importlib.import_module(package)
    exported = list(module.__all__)
    assert len(exported) == len(set(exported)), f"{package}.__all__ lists a name twice"
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    lazy = {name for name in exported if name not in vars(module)}
    assert public - set(exported) == set(), f"{package} defines public names not in __all__"
    for name in exported:  # lazily loaded names (GraphMemory, Database) resolve too
        assert getattr(module, name) is not None, f"{package}.{name} is listed but missing"
    if package == "memory":
        assert lazy == {"GraphMemory"}  # importing memory does not load graphiti-core


def test_the_memory_surface_is_what_other_packages_use() -> None:
    import memory

    assert sorted(memory.__all__) == [
        "EdgeTypeDefinition",
        "EntityRecord",
        "GraphMemory",
        "GraphStats",
        "Namespace",
        "NodeTypeDefinition",
        "OntologyDefinition",
        "RelationshipRecord",
        "SearchHit",
        "Settings",
        "SourceRecord",
        "TraverseResult",
        "WriteResult",
        "get_ontology",
        "list_ontologies",
        "load_settings",
        "register_ontology",
    ]
