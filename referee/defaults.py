"""The protocol's default time controls, defined once: the referee's policy, the conformance checker's and the
arena's options all read these. A module of constants: importing it loads neither the rules engine nor the wire
encoder (the arena's configuration needs these two integers, nothing else of the protocol layer)."""

DEFAULT_DEADLINE_MS = 2000          # per decision
DEFAULT_TIME_BANK_MS = 10_000       # per seat per game, drawn when a decision overruns its deadline

__all__ = ["DEFAULT_DEADLINE_MS", "DEFAULT_TIME_BANK_MS"]
