"""Pepper Arena: the command line (``pepper``) and, later, the tournament runner."""
