"""The data dictionary: canonical submission fields and their synonyms."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

FieldType = Literal["int", "float", "bool", "str"]


class FieldSpec(BaseModel):
    """One canonical submission field."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: FieldType = Field(description="Value type: int, float, bool or str.")
    unit: str | None = Field(default=None, description="Unit of a numeric value.")
    synonyms: list[str] = Field(default_factory=list, description="Words people use for it.")
    description: str = Field(default="", description="What the field means.")
    enum: list[str] | None = Field(
        default=None,
        description="The allowed values of a text field, when listed apart from the description.",
    )


class DataDictionary(BaseModel):
    """The canonical fields of a submission (the dataset's `fields.json`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fields: dict[str, FieldSpec] = Field(description="Field name -> specification.")

    def names(self) -> list[str]:
        """Return the canonical field names."""
        return list(self.fields)

    def boolean_fields(self) -> list[str]:
        """Return the names of the boolean fields (candidate mitigant fields)."""
        return [name for name, spec in self.fields.items() if spec.type == "bool"]


def load_data_dictionary(path: str | Path | None = None) -> DataDictionary:
    """Load a data dictionary from `path`, or the one that ships with the project.

    Args:
        path: A `fields.json` file; None for the packaged default.

    Returns:
        The validated dictionary.

    Raises:
        ValueError: The file is missing, not JSON, or not in the `fields.json` format.
    """
    if path is None:
        text = resources.files("schemas").joinpath("data/fields.json").read_text("utf-8")
        where = "the packaged fields.json"
    else:
        where = str(path)
        try:
            text = Path(path).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read data dictionary {where}: {exc}") from exc
    try:
        return DataDictionary.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise ValueError(
            f"{where} is not a data dictionary: expected {{'fields': {{name: "
            f"{{type: int|float|bool|str, unit, synonyms, description}}}}}}: {exc}"
        ) from exc


def cached_data_dictionary(path: str | Path | None = None) -> DataDictionary:
    """`load_data_dictionary`, parsed once per version of the file (read again when it changes).

    Raises:
        ValueError: As `load_data_dictionary`.
    """
    if path is None:
        return _dictionary_version(None, 0)
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        stamp = -1  # let the loader name what is wrong with the path
    return _dictionary_version(str(path), stamp)


@lru_cache(maxsize=16)
def _dictionary_version(path: str | None, stamp: int) -> DataDictionary:
    return load_data_dictionary(path)
