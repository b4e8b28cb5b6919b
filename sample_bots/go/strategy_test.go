package main

import (
	"testing"

	pb "pepperarena.dev/pepper/v1"
)

func TestBowers(t *testing.T) {
	// Hearts trump: JH (right bower) > JD (left bower) > AH; JD follows hearts, not diamonds.
	h := byte('H')
	if effectiveSuit(parseCard("JD"), h) != 'H' || effectiveSuit(parseCard("JS"), h) != 'S' {
		t.Fatal("the left bower is the jack of trump's colour, and a trump")
	}
	if !(power(parseCard("JH"), h) > power(parseCard("JD"), h) && power(parseCard("JD"), h) > power(parseCard("AH"), h)) {
		t.Fatal("right bower > left bower > ace of trump")
	}
	if power(parseCard("9H"), h) <= power(parseCard("AS"), h) {
		t.Fatal("every trump beats every other card")
	}
	if effectiveSuit(parseCard("JD"), 0) != 'D' || power(parseCard("JD"), 0) >= power(parseCard("QD"), 0) {
		t.Fatal("no-trump has no bowers: J ranks below Q")
	}
}

func TestPlayTakesTheTrickCheaplyFromTheOtherTeam(t *testing.T) {
	view := &pb.SeatView{Seat: 1, TeamOf: []uint32{0, 1, 0, 1}, Contract: &pb.Contract{Trump: "S"},
		Trick: []*pb.CardPlay{{Seat: 0, Card: "AC"}}}
	// Void in clubs: the left bower (JC is a spade here) would win, but so does the cheaper 9S.
	legal := []string{"play JC", "play 9S", "play AH"}
	if got := play(legal, view, 'S'); got != "play 9S" {
		t.Fatalf("got %q, want the cheapest winning trump", got)
	}
	// The partner (seat 3) wins with the right bower: throw the weakest card.
	view.Trick = append(view.Trick, &pb.CardPlay{Seat: 2, Card: "KC"}, &pb.CardPlay{Seat: 3, Card: "JS"})
	view.Seat = 1
	view.TeamOf = []uint32{0, 1, 0, 1}
	if got := play(legal, view, 'S'); got != "play AH" {
		t.Fatalf("got %q, want the weakest card: the partner wins the trick", got)
	}
}

func TestEveryAnswerIsLegal(t *testing.T) {
	req := &pb.DecisionRequest{Kind: pb.DecisionKind_DECISION_KIND_BID,
		View:         &pb.SeatView{Hand: []string{"JH", "JD", "AH", "KH", "AS", "9C"}},
		LegalActions: []string{"bid 3", "bid 4", "bid pepper"}}
	if got := decide(req); got != "bid 3" {
		t.Fatalf("a strong hand bids the lowest numeric bid; got %q", got)
	}
	req.LegalActions = []string{"pass", "bid 2 H", "bid 2 S", "bid 5 H"}
	if got := decide(req); got != "bid 2 H" {
		t.Fatalf("bids name the hand's best suit; got %q", got)
	}
}
