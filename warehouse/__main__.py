"""`python -m warehouse` == `akw`."""

from warehouse.cli import app

app(prog_name="akw")
