"""The class a bot author subclasses, and adapters for plain policies."""

from __future__ import annotations

__all__ = ["Bot", "PolicyBot", "as_bot"]


class Bot:
    """A Pepper bot. Implement :meth:`decide`; the hooks are optional.

    One instance serves every seat of every game its connection is given, so
    keep per-game state keyed by ``game_id`` (a connection holds at most one
    seat of a game). Everything is called from one thread, in the order the
    referee sent it.
    """

    #: The name the bot registers under, used when neither ``--name`` nor
    #: ``PEPPER_BOT_NAME`` gives one.
    name: str | None = None

    #: Hear of every event as it happens (Hello.live_events, protocol 1.6), to think on the other seats' time. By
    #: default the referee sends a seat's events with its next request or game end, in fewer messages: a bot that
    #: only thinks when asked loses nothing and costs less (docs/protocol.md, "Batches").
    live_events: bool = False

    def decide(self, view: dict) -> str:
        """Choose one of ``view["legal_actions"]`` and return it (its text, or its 0-based index).

        ``view`` is the seat's view (see :func:`pepper_bot.convert.request_view`).
        Exceptions and answers that are not legal are logged, and the first
        legal action is played instead.
        """
        raise NotImplementedError("a Bot must implement decide(view) -> action")

    def on_game_start(self, info: dict) -> None:
        """A seat in a new game: ``info`` has game_id, seat, players, ruleset (name, family,
        target_score, deal_cap, hand_size, params), table, deadline_ms and time_bank_ms."""

    def on_event(self, game_id: str, event: dict) -> None:
        """Something happened in a game (see :func:`pepper_bot.convert.event_to_dict`)."""

    def on_game_end(self, game_id: str, result: dict) -> None:
        """A seat's game is over: ``result`` has seat, status ("completed", "forfeited",
        "aborted", or "connection-lost" when the SDK lost the stream), outcome, reason, seat_status."""


class PolicyBot(Bot):
    """A :class:`Bot` around any object with ``decide(view) -> str`` (e.g. the sample bots).

    Hooks the policy defines (``on_game_start``, ``on_event``, ``on_game_end``)
    are forwarded.
    """

    def __init__(self, policy, name: str | None = None):
        self.policy = policy
        self.name = name or getattr(policy, "name", None) or type(policy).__name__.lower()
        #: The runner converts and delivers events only to bots that want them.
        self.wants_events = callable(getattr(policy, "on_event", None))
        self.live_events = bool(getattr(policy, "live_events", False))

    def decide(self, view: dict) -> str:
        return self.policy.decide(view)

    def on_game_start(self, info: dict) -> None:
        hook = getattr(self.policy, "on_game_start", None)
        if callable(hook):
            hook(info)

    def on_event(self, game_id: str, event: dict) -> None:
        if self.wants_events:
            self.policy.on_event(game_id, event)

    def on_game_end(self, game_id: str, result: dict) -> None:
        hook = getattr(self.policy, "on_game_end", None)
        if callable(hook):
            hook(game_id, result)


class _FunctionPolicy:
    def __init__(self, fn):
        self.decide = fn
        self.name = getattr(fn, "__module__", None) or "bot"


def as_bot(obj, name: str | None = None) -> Bot:
    """A Bot from a Bot (returned as is), a Bot subclass, a policy class or object, or a function."""
    if isinstance(obj, type):
        obj = obj()
    if isinstance(obj, Bot):
        if name:
            obj.name = name
        return obj
    if callable(getattr(obj, "decide", None)):
        return PolicyBot(obj, name)
    if callable(obj):
        return PolicyBot(_FunctionPolicy(obj), name)
    raise TypeError(f"{obj!r} is not a bot: it needs a decide(view) method")
