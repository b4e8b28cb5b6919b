'use strict';
// Card semantics, all in one place.
//
// Cards travel as text: rank (9 10 J Q K A) then suit (S H D C), e.g. "JH",
// "10S". A strain is a suit or "NT" (no-trump); here `trump` is a suit letter
// or null for no-trump / not named yet.
//
// In a trump contract the Jack of trump (right bower) is the highest card and
// the other Jack of the same colour (left bower) is second; the left bower IS
// A TRUMP, not a card of its printed suit, for following suit, voids and
// winning tricks. Everything else in the bot asks this module what a card means.

const SUITS = ['S', 'H', 'D', 'C'];
const RANKS = ['9', '10', 'J', 'Q', 'K', 'A']; // plain order, low to high
const STRAINS = ['S', 'H', 'D', 'C', 'NT'];

/** The other suit of the same colour (spades/clubs black, hearts/diamonds red). */
const SAME_COLOUR = { S: 'C', C: 'S', H: 'D', D: 'H' };

/** Split "10S" into { rank: "10", suit: "S" }; throws on anything else. */
function parseCard(text) {
  const t = String(text).trim().toUpperCase().replace(/^T/, '10');
  const rank = t.slice(0, -1);
  const suit = t.slice(-1);
  if (!RANKS.includes(rank) || !SUITS.includes(suit)) throw new Error(`not a card: ${JSON.stringify(text)}`);
  return { rank, suit };
}

const rankOf = (card) => parseCard(card).rank;
const printedSuit = (card) => parseCard(card).suit;

/** "S".."C" for a suit strain, null for "NT", "" or anything unset. */
function trumpOf(strain) {
  const s = (strain || '').toUpperCase();
  return SUITS.includes(s) ? s : null;
}

function isRightBower(card, trump) {
  const { rank, suit } = parseCard(card);
  return trump !== null && rank === 'J' && suit === trump;
}

function isLeftBower(card, trump) {
  const { rank, suit } = parseCard(card);
  return trump !== null && rank === 'J' && suit === SAME_COLOUR[trump];
}

/** The suit a card belongs to for play: the left bower belongs to trump. */
function effectiveSuit(card, trump) {
  return isLeftBower(card, trump) ? trump : printedSuit(card);
}

function isTrump(card, trump) {
  return trump !== null && effectiveSuit(card, trump) === trump;
}

/**
 * Rank of a card inside its effective suit (higher is better):
 * trump: right bower 8, left bower 7, A 6, K 5, Q 4, 10 2, 9 1 (no J of trump left);
 * other suits and no-trump: A 6, K 5, Q 4, J 3, 10 2, 9 1.
 */
function rankInSuit(card, trump) {
  if (isRightBower(card, trump)) return 8;
  if (isLeftBower(card, trump)) return 7;
  return RANKS.indexOf(rankOf(card)) + 1;
}

/** Overall power for choosing "highest"/"lowest": any trump above any non-trump. */
function strength(card, trump) {
  return (isTrump(card, trump) ? 10 : 0) + rankInSuit(card, trump);
}

/** How a card scores in a trick led in `ledSuit`: trumps > suit led > the rest (-1, never wins). */
function trickScore(card, ledSuit, trump) {
  if (isTrump(card, trump)) return 100 + rankInSuit(card, trump);
  if (effectiveSuit(card, trump) === ledSuit) return rankInSuit(card, trump);
  return -1;
}

/**
 * The play now winning a trick: plays are [{seat, card}] in playing order.
 * Of two identical cards the one played first ranks higher, so only a strictly
 * better card takes over.
 */
function trickWinner(plays, trump) {
  if (!plays || plays.length === 0) return null;
  const led = effectiveSuit(plays[0].card, trump);
  let best = plays[0];
  for (const p of plays.slice(1)) {
    if (trickScore(p.card, led, trump) > trickScore(best.card, led, trump)) best = p;
  }
  return best;
}

/** Would `card`, played now to a trick led in `ledSuit`, beat `other` (already in the trick)? */
function beats(card, other, ledSuit, trump) {
  return trickScore(card, ledSuit, trump) > trickScore(other, ledSuit, trump);
}

/**
 * The deck of a game family: the ranks in it and how many copies of each card.
 * iowa and pepper-30: 9 to A once (24 cards); bid-euchre: J to A, one 16-card
 * set per two players; five-handed: J to A three times (48 cards).
 */
function deckFor(family, players) {
  if (family === 'bid-euchre') return { ranks: ['J', 'Q', 'K', 'A'], copies: Math.max(1, Math.floor(players / 2)) };
  if (family === 'five-handed') return { ranks: ['J', 'Q', 'K', 'A'], copies: 3 };
  return { ranks: RANKS.slice(), copies: 1 };
}

/** Every distinct card of a deck, e.g. ["9S", "10S", ..., "AC"]. */
function distinctCards(deck) {
  return SUITS.flatMap((s) => deck.ranks.map((r) => r + s));
}

/**
 * True when no card still unseen (not in `hand`, not in `gone`) of the same
 * effective suit outranks `card`: led now, it wins unless trumped.
 */
function isMaster(card, trump, hand, gone, deck) {
  const suit = effectiveSuit(card, trump);
  const mine = rankInSuit(card, trump);
  const seen = new Map();
  for (const c of [...hand, ...gone]) seen.set(c, (seen.get(c) || 0) + 1);
  return distinctCards(deck).every((c) => {
    if (effectiveSuit(c, trump) !== suit || rankInSuit(c, trump) <= mine) return true;
    return (seen.get(c) || 0) >= deck.copies;
  });
}

module.exports = {
  SUITS, RANKS, STRAINS, SAME_COLOUR,
  parseCard, rankOf, printedSuit, trumpOf, isRightBower, isLeftBower, effectiveSuit, isTrump,
  rankInSuit, strength, trickScore, trickWinner, beats, deckFor, distinctCards, isMaster,
};
