"""The ``pepper`` command line: :mod:`pepper_cli.app` builds it from one module per command group."""
