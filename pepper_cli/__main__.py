"""``python -m pepper_cli ...``: the ``pepper`` command."""

from .app import main

main()
