package main

// The strategy: a small heuristic that picks one of the request's legal actions. Everything it needs is in the
// request (the seat's view and the legal actions), so the bot keeps no state between requests.

import (
	"strconv"
	"strings"

	pb "pepperarena.dev/pepper/v1"
)

// card is a card's text ("JH", "10S") split into rank and suit.
type card struct {
	rank string
	suit byte
	text string
}

func parseCard(s string) card { return card{rank: s[:len(s)-1], suit: s[len(s)-1], text: s} }

var rankOrder = map[string]int{"9": 0, "10": 1, "J": 2, "Q": 3, "K": 4, "A": 5}

func red(suit byte) bool { return suit == 'H' || suit == 'D' }

// trumpSuit is the trump suit of a strain, or 0 for no-trump or no contract yet.
func trumpSuit(strain string) byte {
	if len(strain) == 1 {
		return strain[0]
	}
	return 0
}

// effectiveSuit: the left bower (the jack of trump's colour) is a trump, not a card of its printed suit.
func effectiveSuit(c card, trump byte) byte {
	if trump != 0 && c.rank == "J" && c.suit != trump && red(c.suit) == red(trump) {
		return trump
	}
	return c.suit
}

// power orders cards: every trump above every other card; in trump the right bower (jack of trump), then the
// left bower, then A K Q 10 9; elsewhere A K Q J 10 9.
func power(c card, trump byte) int {
	if trump == 0 || effectiveSuit(c, trump) != trump {
		return rankOrder[c.rank]
	}
	if c.rank == "J" {
		if c.suit == trump {
			return 30
		}
		return 29
	}
	return 20 + rankOrder[c.rank]
}

// trickScore ranks a card in a trick led with suit led: trumps, then the suit led, then the rest (which never win).
func trickScore(c card, trump, led byte) int {
	switch effectiveSuit(c, trump) {
	case trump:
		return 200 + power(c, trump)
	case led:
		return 100 + power(c, trump)
	}
	return 0
}

// suitStrength: how good a hand is with suit s as trump (bowers and aces count most).
func suitStrength(hand []card, s byte) int {
	n := 0
	for _, c := range hand {
		switch {
		case effectiveSuit(c, s) == s && c.rank == "J":
			n += 4
		case effectiveSuit(c, s) == s:
			n += 2 + rankOrder[c.rank]/4 // A and K of trump count one more
		case c.rank == "A":
			n++
		}
	}
	return n
}

func bestSuit(hand []card) byte {
	best, bestN := byte('S'), -1
	for _, s := range []byte("SHDC") {
		if n := suitStrength(hand, s); n > bestN {
			best, bestN = s, n
		}
	}
	return best
}

// estimateTricks: the tricks the hand should take with suit s as trump, roughly.
func estimateTricks(hand []card, s byte) int {
	tricks := 0
	for _, c := range hand {
		if effectiveSuit(c, s) == s && (c.rank == "J" || c.rank == "A" || c.rank == "K") || c.rank == "A" {
			tricks++
		}
	}
	return tricks
}

func cards(texts []string) []card {
	out := make([]card, len(texts))
	for i, t := range texts {
		out[i] = parseCard(t)
	}
	return out
}

// decide returns the action to answer: always one of req.LegalActions.
func decide(req *pb.DecisionRequest) string {
	legal := req.LegalActions
	view := req.View
	hand := cards(view.GetHand())
	trump := trumpSuit(view.GetContract().GetTrump())
	switch req.Kind {
	case pb.DecisionKind_DECISION_KIND_BID:
		return bid(legal, hand)
	case pb.DecisionKind_DECISION_KIND_NAME_TRUMP:
		return pick(legal, "trump "+string(bestSuit(hand)))
	case pb.DecisionKind_DECISION_KIND_EXCHANGE:
		return pick(legal, "exchange yes")
	case pb.DecisionKind_DECISION_KIND_CEDE:
		return pick(legal, "cede no")
	case pb.DecisionKind_DECISION_KIND_GIVE_CARD:
		// The bidder gives back its weakest card; a teammate gives the bidder its strongest.
		weakest := view.GetContract().GetBidder() == view.GetSeat()
		return withCard(legal, "give ", trump, weakest)
	case pb.DecisionKind_DECISION_KIND_DISCARD:
		return withCard(legal, "discard ", trump, true)
	case pb.DecisionKind_DECISION_KIND_PLAY:
		return play(legal, view, trump)
	}
	return legal[0]
}

// pick returns want when it is legal, else the first legal action.
func pick(legal []string, want string) string {
	for _, a := range legal {
		if a == want {
			return a
		}
	}
	return legal[0]
}

// bid: the lowest numeric bid the hand can make (naming its best suit where bids name one), else pass. Special
// bids (pepper, moon-shot...) are left alone; a seat that may not pass bids the lowest it can.
func bid(legal []string, hand []card) string {
	best := bestSuit(hand)
	estimate := estimateTricks(hand, best)
	choice, forced := "", ""
	for _, a := range legal {
		f := strings.Fields(a) // "bid 3" or "bid 4 H"
		if len(f) < 2 || f[0] != "bid" {
			continue
		}
		level, err := strconv.Atoi(f[1])
		if err != nil || (len(f) == 3 && f[2] != string(best)) {
			continue
		}
		if forced == "" {
			forced = a
		}
		if level <= estimate && choice == "" {
			choice = a
		}
	}
	switch {
	case choice != "":
		return choice
	case pick(legal, "pass") == "pass":
		return "pass"
	case forced != "":
		return forced
	}
	return legal[0]
}

// withCard picks among "<prefix><card>" actions the weakest card (lowest power, trumps kept) or the strongest.
func withCard(legal []string, prefix string, trump byte, weakest bool) string {
	choice, best := "", 0
	for _, a := range legal {
		if !strings.HasPrefix(a, prefix) || a == prefix+"none" {
			continue
		}
		p := power(parseCard(a[len(prefix):]), trump)
		if choice == "" || (weakest && p < best) || (!weakest && p > best) {
			choice, best = a, p
		}
	}
	if choice == "" {
		return legal[0]
	}
	return choice
}

// play: lead the strongest card; follow with the cheapest card that takes the trick from the other side, or the
// weakest card when the trick is the own team's or cannot be won.
func play(legal []string, view *pb.SeatView, trump byte) string {
	trick := view.GetTrick()
	if len(trick) == 0 {
		return withCard(legal, "play ", trump, false)
	}
	led := effectiveSuit(parseCard(trick[0].Card), trump)
	winner, top := trick[0].Seat, trickScore(parseCard(trick[0].Card), trump, led)
	for _, p := range trick[1:] {
		if s := trickScore(parseCard(p.Card), trump, led); s > top { // of two equal cards the first played wins
			winner, top = p.Seat, s
		}
	}
	if sameTeam(view, winner, view.GetSeat()) {
		return withCard(legal, "play ", trump, true)
	}
	choice, cheapest := "", 0
	for _, a := range legal {
		c := parseCard(strings.TrimPrefix(a, "play "))
		if trickScore(c, trump, led) > top && (choice == "" || power(c, trump) < cheapest) {
			choice, cheapest = a, power(c, trump)
		}
	}
	if choice != "" {
		return choice
	}
	return withCard(legal, "play ", trump, true)
}

func sameTeam(view *pb.SeatView, a, b uint32) bool {
	teams := view.GetTeamOf()
	return int(a) < len(teams) && int(b) < len(teams) && teams[a] == teams[b]
}
