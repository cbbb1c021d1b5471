"""`akw`: the ops surface, a thin mirror of `warehouse.api.Warehouse` (one command = one method call).

`app.py` holds the Typer app and the JSON error contract, `render.py` the human output, `commands/` one
module per API section; importing a command module registers its commands on `app`.
"""

from warehouse.cli.app import app

# `akw --help` lists the commands in the order they register: this order (not the alphabetical one) keeps it.
# isort: off
from warehouse.cli.commands import index, team, search, schedule, dispatch, lifecycle, config, tools  # noqa: F401
# isort: on

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover
    app(prog_name="akw")
