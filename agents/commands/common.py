"""Options and helpers shared by `athena` commands."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from memory import Settings, load_settings


def add_common_options(parser: argparse.ArgumentParser, *, namespace: bool = True) -> None:
    """Add `--config`, `--fields`, `--json` and (optionally) `--namespace`."""
    parser.add_argument("--config", help="YAML settings file (${VAR} expanded)")
    parser.add_argument("--fields", help="data dictionary (fields.json) to use")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    if namespace:
        parser.add_argument(
            "--namespace", help="namespace, e.g. agent:athena (default: ATHENA_NAMESPACE)"
        )


def settings_from(args: argparse.Namespace) -> Settings:
    """Load settings honouring `--config` and `--fields`."""
    return load_settings(getattr(args, "config", None), fields_path=getattr(args, "fields", None))


def print_json(value: Any) -> None:
    """Print a JSON document on one line."""
    sys.stdout.write(json.dumps(value, default=str, ensure_ascii=False) + "\n")
