#include "strategy.h"

#include <sstream>
#include <vector>

namespace starter {
namespace {

using google::protobuf::RepeatedPtrField;
using Actions = RepeatedPtrField<std::string>;

int RankOrder(const std::string& rank) {
  static const char* const kRanks[] = {"9", "10", "J", "Q", "K", "A"};
  for (int i = 0; i < 6; ++i)
    if (rank == kRanks[i]) return i;
  return -1;
}

bool Red(char suit) { return suit == 'H' || suit == 'D'; }

// How a card ranks in a trick whose led suit is `led`: trumps, then the suit led, then the rest (never winning).
int TrickScore(const Card& c, char trump, char led) {
  char s = EffectiveSuit(c, trump);
  if (trump != 0 && s == trump) return 200 + Power(c, trump);
  if (s == led) return 100 + Power(c, trump);
  return 0;
}

// How good a hand is with suit s as trump (bowers and aces count most).
int SuitStrength(const std::vector<Card>& hand, char s) {
  int n = 0;
  for (const Card& c : hand) {
    if (EffectiveSuit(c, s) == s)
      n += c.rank == "J" ? 4 : 2 + RankOrder(c.rank) / 4;  // A and K of trump count one more
    else if (c.rank == "A")
      n += 1;
  }
  return n;
}

char BestSuit(const std::vector<Card>& hand) {
  char best = 'S';
  int best_n = -1;
  for (char s : std::string("SHDC")) {
    int n = SuitStrength(hand, s);
    if (n > best_n) best = s, best_n = n;
  }
  return best;
}

// The tricks the hand should take with suit s as trump, roughly: high trumps and aces.
int EstimateTricks(const std::vector<Card>& hand, char s) {
  int tricks = 0;
  for (const Card& c : hand)
    if ((EffectiveSuit(c, s) == s && (c.rank == "J" || c.rank == "K")) || c.rank == "A") ++tricks;
  return tricks;
}

// `want` when it is legal, else the first legal action.
std::string Pick(const Actions& legal, const std::string& want) {
  for (const std::string& a : legal)
    if (a == want) return a;
  return legal.Get(0);
}

// The lowest numeric bid the hand can make (naming its best suit where bids name one), else pass. Special bids
// (pepper, moon-shot...) are left alone; a seat that may not pass bids the lowest it can.
std::string Bid(const Actions& legal, const std::vector<Card>& hand) {
  char best = BestSuit(hand);
  int estimate = EstimateTricks(hand, best);
  std::string choice, forced;
  for (const std::string& a : legal) {
    std::istringstream words(a);  // "bid 3" or "bid 4 H"
    std::string verb, level, strain;
    words >> verb >> level >> strain;
    if (verb != "bid" || level.empty() || level.find_first_not_of("0123456789") != std::string::npos) continue;
    if (!strain.empty() && strain != std::string(1, best)) continue;
    if (forced.empty()) forced = a;
    if (choice.empty() && std::stoi(level) <= estimate) choice = a;
  }
  if (!choice.empty()) return choice;
  if (Pick(legal, "pass") == "pass") return "pass";
  return forced.empty() ? legal.Get(0) : forced;
}

// Among "<prefix><card>" actions, the weakest card (lowest power: trumps kept) or the strongest.
std::string WithCard(const Actions& legal, const std::string& prefix, char trump, bool weakest) {
  std::string choice;
  int best = 0;
  for (const std::string& a : legal) {
    if (a.rfind(prefix, 0) != 0 || a == prefix + "none") continue;
    int p = Power(ParseCard(a.substr(prefix.size())), trump);
    if (choice.empty() || (weakest ? p < best : p > best)) choice = a, best = p;
  }
  return choice.empty() ? legal.Get(0) : choice;
}

bool SameTeam(const pepper::v1::SeatView& view, uint32_t a, uint32_t b) {
  int n = view.team_of_size();
  return static_cast<int>(a) < n && static_cast<int>(b) < n && view.team_of(a) == view.team_of(b);
}

// Lead the strongest card; follow with the cheapest card that takes the trick from the other side, or the
// weakest card when the trick is the own team's or cannot be won.
std::string Play(const Actions& legal, const pepper::v1::SeatView& view, char trump) {
  const auto& trick = view.trick();
  if (trick.empty()) return WithCard(legal, "play ", trump, false);
  char led = EffectiveSuit(ParseCard(trick.Get(0).card()), trump);
  uint32_t winner = trick.Get(0).seat();
  int top = TrickScore(ParseCard(trick.Get(0).card()), trump, led);
  for (int i = 1; i < trick.size(); ++i) {
    int s = TrickScore(ParseCard(trick.Get(i).card()), trump, led);
    if (s > top) winner = trick.Get(i).seat(), top = s;  // of two equal cards the first played wins
  }
  if (SameTeam(view, winner, view.seat())) return WithCard(legal, "play ", trump, true);
  std::string choice;
  int cheapest = 0;
  for (const std::string& a : legal) {
    Card c = ParseCard(a.substr(5));
    if (TrickScore(c, trump, led) > top && (choice.empty() || Power(c, trump) < cheapest))
      choice = a, cheapest = Power(c, trump);
  }
  return choice.empty() ? WithCard(legal, "play ", trump, true) : choice;
}

}  // namespace

Card ParseCard(const std::string& text) { return Card{text.substr(0, text.size() - 1), text.back()}; }

char TrumpSuit(const std::string& strain) { return strain.size() == 1 ? strain[0] : 0; }

char EffectiveSuit(const Card& c, char trump) {
  if (trump != 0 && c.rank == "J" && c.suit != trump && Red(c.suit) == Red(trump)) return trump;
  return c.suit;
}

int Power(const Card& c, char trump) {
  if (trump == 0 || EffectiveSuit(c, trump) != trump) return RankOrder(c.rank);
  if (c.rank == "J") return c.suit == trump ? 30 : 29;
  return 20 + RankOrder(c.rank);
}

std::string Decide(const pepper::v1::DecisionRequest& request) {
  using pepper::v1::DecisionKind;
  const Actions& legal = request.legal_actions();
  const pepper::v1::SeatView& view = request.view();
  std::vector<Card> hand;
  for (const std::string& c : view.hand()) hand.push_back(ParseCard(c));
  char trump = TrumpSuit(view.contract().trump());
  switch (request.kind()) {
    case pepper::v1::DECISION_KIND_BID:
      return Bid(legal, hand);
    case pepper::v1::DECISION_KIND_NAME_TRUMP:
      return Pick(legal, std::string("trump ") + BestSuit(hand));
    case pepper::v1::DECISION_KIND_EXCHANGE:
      return Pick(legal, "exchange yes");
    case pepper::v1::DECISION_KIND_CEDE:
      return Pick(legal, "cede no");
    case pepper::v1::DECISION_KIND_GIVE_CARD:
      // The bidder gives back its weakest card; a teammate gives the bidder its strongest.
      return WithCard(legal, "give ", trump, view.contract().bidder() == view.seat());
    case pepper::v1::DECISION_KIND_DISCARD:
      return WithCard(legal, "discard ", trump, true);
    case pepper::v1::DECISION_KIND_PLAY:
      return Play(legal, view, trump);
    default:
      return legal.Get(0);
  }
}

}  // namespace starter
