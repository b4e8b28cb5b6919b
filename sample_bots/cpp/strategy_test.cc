// The strategy's unit tests: `make test` builds and runs them (exit status 1 on the first failure).
#include <cstdlib>
#include <iostream>

#include "strategy.h"

namespace {

void Expect(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "FAIL: " << what << std::endl;
    std::exit(1);
  }
}

int P(const char* card, char trump) { return starter::Power(starter::ParseCard(card), trump); }

}  // namespace

int main() {
  using starter::EffectiveSuit;
  using starter::ParseCard;
  // Hearts trump: JH (right bower) > JD (left bower) > AH; JD follows hearts, not diamonds.
  Expect(EffectiveSuit(ParseCard("JD"), 'H') == 'H' && EffectiveSuit(ParseCard("JS"), 'H') == 'S',
         "the left bower is the jack of trump's colour, and a trump");
  Expect(P("JH", 'H') > P("JD", 'H') && P("JD", 'H') > P("AH", 'H'), "right bower > left bower > ace of trump");
  Expect(P("9H", 'H') > P("AS", 'H'), "every trump beats every other card");
  Expect(EffectiveSuit(ParseCard("JD"), 0) == 'D' && P("JD", 0) < P("QD", 0), "no-trump has no bowers");
  Expect(P("10S", 'C') > P("9S", 'C'), "10 is a rank of its own, above 9");

  pepper::v1::DecisionRequest req;
  req.set_kind(pepper::v1::DECISION_KIND_PLAY);
  auto* view = req.mutable_view();
  view->set_seat(1);
  for (int t : {0, 1, 0, 1}) view->add_team_of(t);
  view->mutable_contract()->set_trump("S");
  auto* lead = view->add_trick();
  lead->set_seat(0);
  lead->set_card("AC");
  for (const char* a : {"play JC", "play 9S", "play AH"}) req.add_legal_actions(a);
  // Void in clubs: the left bower (JC is a spade here) would win, but so does the cheaper 9S.
  Expect(starter::Decide(req) == "play 9S", "the cheapest winning trump");
  auto* second = view->add_trick();
  second->set_seat(2);
  second->set_card("KC");
  auto* third = view->add_trick();
  third->set_seat(3);
  third->set_card("JS");
  Expect(starter::Decide(req) == "play AH", "the partner wins the trick: the weakest card");

  pepper::v1::DecisionRequest bid;
  bid.set_kind(pepper::v1::DECISION_KIND_BID);
  for (const char* c : {"JH", "JD", "AH", "KH", "AS", "9C"}) bid.mutable_view()->add_hand(c);
  for (const char* a : {"pass", "bid 2 H", "bid 2 S", "bid 5 H"}) bid.add_legal_actions(a);
  Expect(starter::Decide(bid) == "bid 2 H", "bids name the hand's best suit");
  std::cout << "strategy tests passed" << std::endl;
  return 0;
}
