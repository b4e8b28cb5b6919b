"""Storing a finished game and rating it, for the tests that set up a store by hand: the two steps the arena takes
(:meth:`Store.record_group` as its group writer does, then :meth:`Store.rate_games` as it rates in plan order)."""

from collections.abc import Callable

from arena.ratings import Rating
from arena.store import NewGame, Store


def record_rated(st: Store, game: NewGame, rate: Callable[[dict[str, Rating]], dict[str, Rating]]) -> int:
    """Store ``game`` and rate it with ``rate(current ratings of the versions that played it)``; its game id."""
    assert st.record_group([game]) == [True], f"game {game.idx} of run {game.run_id} was stored already"
    [gid] = st.latest_game_ids(limit=1)
    st.rate_games([st.game(gid)], lambda g, current: rate(current))
    return gid
