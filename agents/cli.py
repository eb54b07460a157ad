"""The `athena` command line: parse, call, print. Each command group lives in agents/commands."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from agents.commands import COMMANDS, command_modules

# Young-generation size of the cyclic GC in an `athena` process (CPython's default: 700).
# `athena decide` imports some 130k long-lived objects (pydantic, LangChain, numpy): at
# 700 the GC rescans them in ~320 young, ~30 middle and 2 full collections (~0.15 s of
# its start-up); at 10,000 in ~25 young and 2 middle ones. The older ratios stay.
GC_YOUNG_THRESHOLD = 10_000
# Defaults of the process environment an `athena` command runs in (a value the user set
# wins). OpenBLAS starts a thread per core when numpy is imported; the commands' BLAS
# work is a few small products (field linking), and starting those threads cost a fresh
# `athena decide` 40-60 ms of its start-up on a busy 2-core machine.
ENV_DEFAULTS = {
    "GRAPHITI_TELEMETRY_ENABLED": "false",
    "OPENBLAS_NUM_THREADS": "1",
}


def set_env_defaults() -> None:
    """Set `ENV_DEFAULTS` that the environment does not set (before numpy is imported)."""
    for name, value in ENV_DEFAULTS.items():
        os.environ.setdefault(name, value)


def _command_of(argv: Sequence[str]) -> str | None:
    """The command an argument list runs (its first word that is not an option)."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Return the argument parser: for `argv`'s command only, or for every command."""
    parser = argparse.ArgumentParser(
        prog="athena",
        description="Athena Memory: graph memory and underwriting agents.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    command = _command_of(argv) if argv is not None else None
    for module in command_modules([command] if command else COMMANDS):
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one `athena` command and return its exit code."""
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    set_env_defaults()
    # Imported after the GC and the environment are set: they are most of what the
    # threshold is for, and they import numpy.
    from agents.errors import describe, install_log_redaction
    from memory.settings import redact

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    install_log_redaction()
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`athena export | head`): not an error to report.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - the one error boundary of the command line
        message, code = describe(exc)
        if args.verbose:
            sys.stderr.write(redact(traceback.format_exc()))
        print(f"athena {args.command}: error: {message}", file=sys.stderr)
        return code


def run() -> NoReturn:
    """The `athena` program: run the command of `sys.argv` and exit with its code.

    The process ends here, so its objects are frozen first (`gc.freeze`): the
    collection the interpreter runs on its way out then scans none of them (some
    20 ms after an `athena decide`); they are still freed as usual.
    """
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
