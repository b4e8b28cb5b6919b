"""Hidden-information audit: every message each bot connection received, across 500 games of each ruleset
(``PEPPER_AUDIT_GAMES=N`` for a deeper one).

Eight recording bot processes (one per seat number, so every connection holds
exactly one seat of a game) play short games (deal cap 1) of every ruleset, half
of them with ``play_forced`` (as the arena runs). A few more games per ruleset
seat two misbehaving bots (illegal and malformed answers at every decision) in
seats 0 and 1, so that notices and fallbacks are audited too. The test then
replays each game from its record and checks every message that went over the wire:

* no card another seat holds (and this seat does not), no dead-hand card and no
  widow card the seat did not take ever appears in anything sent to it (events,
  requests, notices and their fallback actions, game starts and ends), unless
  the card had become public (played, or called as the partner card) in that deal;
* every event sent is one the engine marks public or private to that seat, equal
  to the engine's event, and the seat got every such event, exactly once;
* every decision request's view equals the engine's view of that seat at that
  moment, and its legal actions are the engine's.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import struct
import time
from collections import defaultdict

import pytest
from google.protobuf.descriptor import FieldDescriptor
from pepper_proto.v1 import bot_pb2, control_pb2, game_pb2
from referee_harness import Server, assert_clean, seat_status_name, status_name

from referee import wire
from referee.rules import CARDS, Game
from referee.rules.game import PUBLIC

pytestmark = pytest.mark.xdist_group("referee-audit")

GAMES_PER_RULESET = int(os.environ.get("PEPPER_AUDIT_GAMES", "500"))
CASES = {"iowa": [4], "bid-euchre": [4, 6, 8], "pepper-30": [2, 3, 4], "five-handed": [5]}
SEATS = [f"p{k}" for k in range(8)]
FAULTY_PER_RULESET = max(2, GAMES_PER_RULESET // 25)   # extra games with misbehaving seats 0 and 1
BAD = {"xi": "illegal", "xm": "malformed"}               # bot name -> --mode, at every decision
CARD_TEXT = re.compile(r"(?<![0-9A-Za-z])(?:10|[9JQKA])[SHDC](?![0-9A-Za-z])")


def read_record(path):
    data = path.read_bytes()
    pos, out = 0, []
    while pos < len(data):
        (n,) = struct.unpack_from(">I", data, pos)
        out.append(bot_pb2.ConnectResponse.FromString(data[pos + 4: pos + 4 + n]))
        pos += 4 + n
    return out


@pytest.fixture
def audited(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("audit"), bots={n: f"{n}-token-audit" for n in [*SEATS, *BAD]}, shared_seats=False)
    try:
        bots = {n: s.bot(n, "--batch", "128", wait=False, record=True) for n in SEATS}
        bots |= {n: s.bot(n, "--batch", "128", "--mode", mode, wait=False, record=True) for n, mode in BAD.items()}
        for n in bots:
            s.wait_connections(n, n=1)
        reqs, forced, faulty = [], [], []
        k = 0
        for rs, counts in CASES.items():
            for i in range(GAMES_PER_RULESET + FAULTY_PER_RULESET):
                players = counts[i % len(counts)]
                seats = SEATS[:players]
                faulty.append(i >= GAMES_PER_RULESET)
                if faulty[-1]:
                    seats = [*BAD, *seats[2:]]
                forced.append(i % 2 == 1)
                req = control_pb2.CreateGameRequest(
                    ruleset_json=json.dumps({"extends": rs, "deal_cap": 1}), players=players, seats=seats, seed=k,
                    policy=control_pb2.GamePolicy(play_forced=forced[-1]))
                reqs.append(req)
                k += 1
        t0 = time.time()
        ids = s.create_many(reqs)
        results = s.wait_games(ids, timeout=240)
        print(f"audit: {len(ids)} games in {time.time() - t0:.1f}s")
        for b in bots.values():
            b.stop()
        records = {n: read_record(b.record) for n, b in bots.items()}
        yield results, records, {g for g, f in zip(ids, forced) if f}, {g for g, f in zip(ids, faulty) if f}
    finally:
        s.close()


def deal_secrets(g: Game):
    """Per deal: each seat's dealt cards, the widow and the dead hand (re-dealt from the recorded deck)."""
    dealers = [e.seat for e in g.events if e.kind == "deal"]
    out = []
    for deck, dealer in zip(g.decks_dealt, dealers):
        d = Game(g.ruleset, g.players, decks=[deck], first_dealer=dealer)
        out.append(([{str(CARDS[c]) for c in h} for h in d.hands], {str(CARDS[c]) for c in d.widow},
                    {str(CARDS[c]) for c in d.dead_hand}))
    return out


def known_and_public(g: Game):
    """Per deal: cards each seat legitimately knows (own deals, widow taken, received), and public cards."""
    known: list[list[set]] = []
    public: list[set] = []
    for e in g.events:
        if e.kind == "deal":
            known.append([set() for _ in range(g.players)])
            public.append(set())
        elif e.kind in ("hand", "widow"):
            known[-1][e.seat].update(str(CARDS[c]) for c in e.data)
        elif e.kind == "received_card":
            known[-1][e.seat].add(str(CARDS[e.data]))
        elif e.kind in ("play", "partner", "partner_card") and e.data is not None:
            public[-1].add(str(CARDS[e.data]))
    return known, public


def cards_in_request(r: bot_pb2.DecisionRequest) -> tuple[set, set]:
    """(cards the seat holds or held privately, cards from the public record) named in a request."""
    v = r.view
    own = set(v.hand) | set(v.private_cards.widow) | set(v.private_cards.gave) | set(v.private_cards.received) \
        | set(v.private_cards.discards)
    own |= {a.split()[1] for a in r.legal_actions if a.split()[0] in ("play", "give", "discard") and a != "give none"}
    pub = {p.card for p in v.trick} | {p.card for t in v.tricks for p in t.plays}
    if v.partner_card:
        pub.add(v.partner_card)
    return own, pub


def _strings(msg, out: list) -> list:
    for fd, v in msg.ListFields():
        if fd.type == FieldDescriptor.TYPE_STRING:
            out.extend(v if fd.is_repeated else (v,))
        elif fd.type == FieldDescriptor.TYPE_MESSAGE:
            for x in (v if fd.is_repeated else (v,)):
                _strings(x, out)
    return out


def cards_in_text(msg) -> set:
    """Every card named in any string of a message, at any depth (cards travel as text: reasons, JSON, actions)."""
    return set(CARD_TEXT.findall("\n".join(_strings(msg, []))))


def check_faulty(res: control_pb2.GameResult) -> None:
    """A game with the misbehaving bots in seats 0 and 1: played to its outcome, every fault theirs, by fallback."""
    assert status_name(res.status) == "GAME_STATUS_COMPLETED", (res.game_id, res.reason)
    assert res.faults and all(f.seat in (0, 1) and f.policy == game_pb2.FAILURE_POLICY_FALLBACK for f in res.faults)
    assert all(seat_status_name(s.status) == "SEAT_STATUS_OK" for s in res.seats[2:])


def test_no_connection_ever_receives_hidden_information(audited):
    """One test over all four rulesets (a module fixture shared by parametrized tests could be set up twice under xdist)."""
    results, records, forced, faulty = audited
    totals = defaultdict(int)
    for ruleset in CASES:
        for k, v in audit_ruleset(results, records, forced, faulty, ruleset).items():
            totals[k] += v
    # every kind of item was audited: the faulty games' notices (with their fallback actions), every game's start and end
    assert totals["notice"] > 4 * FAULTY_PER_RULESET and totals["fallback"] > 0
    assert totals["game_start"] == totals["game_end"] == sum(r.players for r in results.values())


def audit_ruleset(results, records, forced, faulty, ruleset) -> dict:
    games = {gid: r for gid, r in results.items() if r.ruleset == f"{ruleset}-custom"}
    assert len(games) == GAMES_PER_RULESET + FAULTY_PER_RULESET
    replays, secrets_, known, public, views, events, deal_at, forbidden = {}, {}, {}, {}, {}, {}, {}, {}
    for gid, res in games.items():
        if gid in faulty:
            check_faulty(res)
        else:
            assert_clean(res)
        g = Game.from_record(json.loads(res.record_json))
        replays[gid] = g
        events[gid] = evs = g.events
        deal_at[gid] = list(itertools.accumulate(int(e.kind == "deal") for e in evs))
        secrets_[gid] = deal_secrets(g)
        known[gid], public[gid] = known_and_public(g)
        # per deal and seat: the cards it must never be shown
        forbidden[gid] = [[(set().union(*(h for t, h in enumerate(hands) if t != seat)) | widow | dead)
                           - known[gid][d][seat] - public[gid][d] for seat in range(g.players)]
                          for d, (hands, widow, dead) in enumerate(secrets_[gid])]
        # the engine's view of the seat to act at every decision it was asked, replayed
        r = Game(g.ruleset, g.players, seed=g.seed, first_dealer=g.first_dealer)
        per_seat = defaultdict(list)
        for a in g.history:
            if gid not in forced or r.publicly_forced() is None:
                per_seat[r.to_act].append((wire.view_to_proto(r.view(r.to_act)), wire.legal_texts(r)))
            r.apply(a)
        views[gid] = per_seat
    counts = defaultdict(int)
    for name, msgs in records.items():
        seat_of: dict[str, int] = {}
        got_events: dict[str, list[int]] = defaultdict(list)
        req_no: dict[str, int] = defaultdict(int)
        deal_of: dict[int, int] = {}        # request id -> its deal (0-based), for the notices about it
        for m in msgs:
            if m.WhichOneof("message") != "batch":
                continue
            for it in m.batch.items:
                kind = it.WhichOneof("item")
                msg = getattr(it, kind)
                gid = msg.game_id
                if gid not in games:
                    continue
                if kind == "game_start":
                    assert gid not in seat_of, "one seat per connection per game in this audit"
                    seat_of[gid] = seat = msg.seat
                    assert name == games[gid].seats[seat].bot_name
                    deal, named = 0, cards_in_text(msg)    # before the first deal: no card is known
                elif kind == "game_end":
                    seat = seat_of[gid]
                    assert msg.seat == seat
                    deal, named = len(secrets_[gid]) - 1, cards_in_text(msg)
                elif kind == "notice":
                    seat = seat_of[gid]
                    assert gid in faulty and seat in (0, 1), f"{name} got a notice in a clean game {gid}: {msg}"
                    deal = deal_of[msg.request_id]
                    # An illegal answer's notice echoes it first ("illegal: play 9S is not a legal action here"):
                    # the bot's own words, whatever card they name; a malformed one's gives fixed examples
                    # ("expected e.g. 'play JH'"). The rest (legal actions, fallback) is audited.
                    text = re.sub(r"^illegal: .*? is not a legal action here", "", msg.message)
                    assert text != msg.message or msg.code != bot_pb2.NOTICE_CODE_ILLEGAL_ACTION, msg.message
                    text = re.sub(r"\(expected e\.g\. [^)]*\)", "", text)
                    named = set(CARD_TEXT.findall(text)) | set(CARD_TEXT.findall(msg.fallback_action))
                    counts["fallback"] += bool(msg.fallback_action)
                    assert msg.fallback_action in msg.message     # "... played <fallback>"
                elif kind == "event":
                    seat = seat_of[gid]
                    e = events[gid][msg.index]
                    assert e.visible_to in (PUBLIC, seat), f"{name} got seat {e.visible_to}'s private {e.kind} in {gid}"
                    want = wire.event_to_proto(gid, msg.index, e, seat=None if e.visible_to == PUBLIC else seat)
                    assert msg == want
                    got_events[gid].append(msg.index)
                    deal = deal_at[gid][msg.index] - 1
                    named = set(msg.cards)
                else:
                    seat = seat_of[gid]
                    k = req_no[gid]
                    req_no[gid] += 1
                    want_view, want_legal = views[gid][seat][k]
                    assert msg.seat == seat and msg.view == want_view and list(msg.legal_actions) == want_legal
                    deal = msg.view.deal - 1
                    own, pub = cards_in_request(msg)
                    assert pub <= public[gid][deal]
                    assert own <= known[gid][deal][seat], f"{name} was shown cards it never held in {gid}"
                    named = own | pub
                    deal_of[msg.request_id] = deal
                counts[kind] += 1
                leaked = named & forbidden[gid][deal][seat]
                assert not leaked, f"{name} (seat {seat}) received hidden cards {leaked} in {gid} deal {deal + 1}"
        for gid, seat in seat_of.items():
            want = [i for i, e in enumerate(events[gid]) if e.visible_to in (PUBLIC, seat)]
            assert got_events[gid] == want, f"{name} did not get exactly its events of {gid}"
            assert req_no[gid] == len(views[gid][seat])
        assert set(seat_of) == {gid for gid, r in games.items() if name in {s.bot_name for s in r.seats}}
    assert counts["request"] > 5 * GAMES_PER_RULESET and counts["event"] > counts["request"]
    return counts
