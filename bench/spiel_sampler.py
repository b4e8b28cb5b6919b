"""The IS-MCTS deal sampler with and without the seats' voids, per ruleset (docs/research.md).

    python bench/spiel_sampler.py [--games 10] [--tries 100] [--results PATH | --no-write]

At every decision of the first deal of ``--games`` seeded games with random
players, the seat to act samples its deal (``pepper_spiel.sample.sample_deal``)
twice from the same seed: as the entrant does, with the voids its events show
(``deal_voids``), and, as the baseline measured in the same run, without them
(the sampler before voids). Reported per configuration: the decisions where no
deal was found within ``--tries`` draws, those whose first draw was refused
(``--tries 1``), and the sampling time of each, with the ratio to the baseline. The figures also go to
docs/results/spiel_sampler.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)   # the repo root, not bench/ (bench/referee.py)

from bench import results  # noqa: E402
from pepper_spiel.sample import deal_actions, deal_facts, deal_voids, sample_deal, shown_events, taken_widow  # noqa: E402
from referee.rules import Game, ruleset_from_dict  # noqa: E402

CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("pepper-30", 2), ("pepper-30", 3), ("five-handed", 5)]
NO_VOIDS = ({}, set())


def positions(ruleset: str, players: int, games: int):
    """(game, seat, events) at every decision of the first deal of each game that follows a known action."""
    rs = ruleset_from_dict({"extends": ruleset, "name": "bench", "deal_cap": 1})
    for seed in range(games):
        g, rng = Game(rs, players, seed=seed), random.Random(seed)
        while not g.is_over:
            p = g.to_act
            events = [(e.kind, e.seat, e.data) for _, e in g.events_for(p)]
            if any(a is not None for a in deal_actions(events, p, g.table.bid_names_strain)):
                yield rs, g, p, events
            g.apply(rng.choice(g.legal_action_ids()))


def sample(rs, g: Game, p: int, events: list[tuple], seed: int, tries: int, voids) -> bool:
    hand, played, unseen = deal_facts(events, p, g.table.team_of)
    private = g.view(p).private
    dealer, n = g.dealer, g.table.players
    return sample_deal(g.table, lambda deck: Game(rs, n, decks=[deck], first_dealer=dealer), p, dealer, hand,
                       deal_actions(events, p, g.table.bid_names_strain), played,
                       [int(c) for c in private.get("gave", ())], [int(c) for c in private.get("received", ())],
                       random.Random(seed), tries=tries, unseen=unseen, shown=shown_events(events),
                       widow=taken_widow(events, p), voids=voids) is not None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--tries", type=int, default=100)
    results.add_arguments(ap)
    a = ap.parse_args()
    out = results.Results("spiel_sampler", "IS-MCTS deal sampler", f"At every decision of the first deal of {a.games} "
                          "seeded games with random players, the deal sampler with the seats' voids (as the entrant "
                          "samples) and without them (the baseline, measured in the same run): decisions where no deal "
                          f"was found within {a.tries} draws, those whose first draw was refused, and the sampling time.", a)
    rows = []
    print(f"{'config':<16} {'decisions':>9} {'none (no voids)':>16} {'none (voids)':>13} "
          f"{'1st refused (no voids)':>23} {'1st refused (voids)':>20} {'s (no voids)':>13} {'s (voids)':>10} {'ratio':>6}")
    for ruleset, players in CONFIGS:
        count = 0
        none, first, secs = [0, 0], [0, 0], [0.0, 0.0]
        for i, (rs, g, p, events) in enumerate(positions(ruleset, players, a.games)):
            count += 1
            for k, voids in enumerate((NO_VOIDS, deal_voids(events, p))):
                start = time.perf_counter()
                none[k] += not sample(rs, g, p, events, i, a.tries, voids)
                secs[k] += time.perf_counter() - start
                first[k] += not sample(rs, g, p, events, i, 1, voids)
        print(f"{ruleset + '/' + str(players) + 'p':<16} {count:>9} {none[0]:>16} {none[1]:>13} {first[0]:>23} "
              f"{first[1]:>20} {secs[0]:>13.2f} {secs[1]:>10.2f} {secs[1] / secs[0]:>6.2f}")
        rows.append([f"{ruleset}/{players}p", count, none[0], none[1], first[0], first[1], secs[0], secs[1],
                     secs[1] / secs[0]])
    out.table(["configuration", "decisions", "none found, no voids", "none found, voids", "1st draw refused, no voids",
               "1st draw refused, voids", "s, no voids (the baseline)", "s, voids", "ratio to the baseline"], rows)
    out.write()


if __name__ == "__main__":
    main()
