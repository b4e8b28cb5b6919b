// The strategy: a small heuristic that picks one of a request's legal actions. Everything it needs is in the
// request (the seat's view and the legal actions), so the bot keeps no state between requests.
#pragma once

#include <string>

#include "pepper/v1/bot.pb.h"

namespace starter {

// A card's text ("JH", "10S") split into rank and suit.
struct Card {
  std::string rank;
  char suit;
};
Card ParseCard(const std::string& text);

// The trump suit of a strain, or 0 for no-trump or no contract yet.
char TrumpSuit(const std::string& strain);
// The left bower (the jack of trump's colour) is a trump, not a card of its printed suit.
char EffectiveSuit(const Card& c, char trump);
// Every trump above every other card; in trump the right bower (jack of trump), the left bower, then A K Q 10 9;
// elsewhere A K Q J 10 9.
int Power(const Card& c, char trump);

// The action to answer: always one of request.legal_actions() (which must not be empty).
std::string Decide(const pepper::v1::DecisionRequest& request);

}  // namespace starter
