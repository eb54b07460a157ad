from pathlib import Path

import pytest

from memory import load_settings
from memory.settings import default_data_dir


def test_environment_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("FALKORDB_URL", "redis://db.example:6379")
    s = load_settings()
    assert s.data_dir == tmp_path and s.falkordb_url == "redis://db.example:6379"
    assert not s.llm_enabled and s.resolved_embedder == "wordllama"


def test_blank_values_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALKORDB_URL", "  ")
    monkeypatch.setenv("OPENAI_API_KEY", "")
    s = load_settings()
    assert s.falkordb_url is None and not s.llm_enabled


def test_default_data_dir_is_per_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATHENA_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", "/home/u/.data")
    assert load_settings().data_dir == default_data_dir() == Path("/home/u/.data/athena-memory")


def test_yaml_file_with_env_expansion(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test")
    cfg = tmp_path / "athena.yaml"
    cfg.write_text(
        "openai_api_key: ${MY_KEY}\n"
        "llm_model: ${ATHENA_TEST_MODEL:-gpt-test}\n"
        "data_dir: /srv/athena\n"
    )
    s = load_settings(cfg)
    assert s.openai_api_key == "sk-test" and s.llm_model == "gpt-test"
    assert s.data_dir == Path("/srv/athena") and s.llm_enabled
    assert s.resolved_embedder == "openai"
    monkeypatch.setenv("ATHENA_CONFIG", str(cfg))
    assert load_settings().openai_api_key == "sk-test"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("nonsense_key: 1\n", "unknown keys \\['nonsense_key'\\]"),
        ("openai_api_key: ${SURELY_UNSET_VAR}\n", "SURELY_UNSET_VAR"),
        ("- a\n- b\n", "must hold a mapping"),
        ("similarity_threshold: 7\n", "invalid settings"),
    ],
)
def test_bad_settings_files_are_explained(tmp_path: Path, content: str, message: str) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(content)
    with pytest.raises(ValueError, match=message):
        load_settings(cfg)


def test_missing_settings_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read settings file"):
        load_settings(tmp_path / "absent.yaml")
