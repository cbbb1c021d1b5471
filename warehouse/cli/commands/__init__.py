"""The `akw` commands, one module per API section; each registers on `warehouse.cli.app` when imported."""
