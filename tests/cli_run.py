"""Run the real `akw` app inside the test process: the same argv parsing, commands and JSON contract.

A separate `akw` process costs about half a second before it does anything (interpreter, imports,
settings); a test that walks a list of inputs through the CLI pays that per input. `run` invokes the
Typer app itself with Typer's CliRunner instead, with the environment the test names (every other
`AKW_*` variable removed, as the subprocess helpers strip them), stdin from bytes, and the exit code
and both streams captured separately. What needs a process of its own stays in a subprocess:
the installed entry point, undecodable argv bytes, broken pipes, signals, locks held by another
process (test_cli_contract, test_states, test_generations, test_schedule).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import typer.testing
from typer.testing import CliRunner

from warehouse.cli import app
from warehouse.core.background import WRITER

# The click command tree of `app`, made once, as an `akw` process makes it once: Typer's CliRunner makes
# it anew on every invocation (every command's signature and annotations read again, ~15 ms a run).
_make_command = typer.testing._get_command
COMMAND = _make_command(app)
typer.testing._get_command = lambda typer_app: COMMAND if typer_app is app else _make_command(typer_app)


@dataclass(frozen=True)
class Run:
    """One finished invocation."""

    code: int
    stdout: str
    stderr: str

    def doc(self) -> dict[str, Any]:
        """The one JSON document of a `--json` run (and no traceback on stderr)."""
        assert "Traceback" not in self.stderr, self.stderr
        lines = self.stdout.splitlines()
        assert len(lines) == 1, self.stdout[:500]
        return json.loads(lines[0])


def run(*args: str, env: Mapping[str, str] | None = None, stdin: bytes | str | None = None,
        keep: tuple[str, ...] = ("AKW_NOW",), clear: tuple[str, ...] = ("AKW_",)) -> Run:
    """`akw ARGS…` in-process; `env` is laid over the test's environment minus the variables whose
    names start with a `clear` prefix (but those in `keep`)."""
    cleared: dict[str, str | None] = {k: None for k in os.environ if k.startswith(clear) and k not in keep}
    result = CliRunner().invoke(app, list(args), input=stdin, env={**cleared, **(env or {})},
                                catch_exceptions=False, prog_name="akw")
    WRITER.flush()  # what a finished process would have written at exit (access counters, feedback)
    return Run(result.exit_code, result.stdout, result.stderr)


def akw_json(*args: str, env: Mapping[str, str] | None = None, stdin: bytes | str | None = None,
             keep: tuple[str, ...] = ("AKW_NOW",), clear: tuple[str, ...] = ("AKW_",)) -> tuple[int, dict[str, Any]]:
    """`akw ARGS… --json` in-process: (exit code, its one JSON document)."""
    r = run(*args, "--json", env=env, stdin=stdin, keep=keep, clear=clear)
    return r.code, r.doc()
