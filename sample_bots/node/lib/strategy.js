'use strict';
// The bot's decisions: simple heuristics for every ruleset. decide() returns an
// action text; the client checks it against the legal actions (and falls back
// to the first one if it is not legal or decide() throws).
//
// Input is a DecisionRequest as the gRPC client receives it (snake_case fields,
// enums as names): { kind, view, legal_actions, game_id, request_id }, plus what
// the bot learnt from GameStart about the game ({ family, players, hand_size, target_score }),
// which may be missing (the strategy then guesses from the view).

const C = require('./cards');

const FAMILIES = ['bid-euchre', 'five-handed', 'pepper-30', 'iowa'];
const KINDS = {
  DECISION_KIND_BID: 'bid', DECISION_KIND_NAME_TRUMP: 'name_trump', DECISION_KIND_EXCHANGE: 'exchange',
  DECISION_KIND_GIVE_CARD: 'give_card', DECISION_KIND_DISCARD: 'discard', DECISION_KIND_CEDE: 'cede',
  DECISION_KIND_PLAY: 'play',
};
const VERB_KIND = {
  pass: 'bid', bid: 'bid', trump: 'name_trump', exchange: 'exchange', give: 'give_card', discard: 'discard',
  cede: 'cede', play: 'play',
};

/** Canonical form of an action for comparison: lower case, single spaces. */
const norm = (a) => String(a).trim().toLowerCase().split(/\s+/).join(' ');

// ---------------------------------------------------------------------------- the situation

function guessFamily(view, legal) {
  const name = String(view.ruleset || '');
  const known = FAMILIES.find((f) => name === f || name.startsWith(`${f}-`));
  if (known) return known;
  if (view.players === 5) return 'five-handed';
  if (legal.some((a) => /^bid \S+ (S|H|D|C|NT)$/i.test(a.trim()))) return 'bid-euchre';
  if (view.players === 2 || view.players === 3) return 'pepper-30';
  return 'iowa';
}

/** Everything the heuristics need, read once from the request. */
function situation(request, game) {
  const g = game || {};
  const view = request.view || {};
  const legal = request.legal_actions;
  const players = view.players || g.players || 4;
  const family = view.family || g.family || guessFamily(view, legal);
  const contract = view.contract || null;
  const trump = contract ? C.trumpOf(contract.trump) : null;
  const trick = (view.trick || []).map((p) => ({ seat: p.seat, card: p.card }));
  const tricks = view.tricks || [];
  const played = [...tricks.flatMap((t) => (t.plays || []).map((p) => p.card)), ...trick.map((p) => p.card)];
  const hand = view.hand || [];
  const teamOf = view.team_of && view.team_of.length === players ? view.team_of : [...Array(players).keys()];
  return {
    view, legal, family, players, hand, contract, trump, trick, tricks, played, teamOf,
    seat: view.seat || 0,
    bidder: contract ? contract.bidder : null,
    handSize: g.hand_size || hand.length || 6,
    target: g.target_score || null,
    deck: C.deckFor(family, players),
    kind: KINDS[request.kind] || VERB_KIND[norm(legal[0]).split(' ')[0]],
  };
}

/** Seats on my side in this deal (five-handed: bidder and called partner vs the defenders). */
function mySide(s) {
  const teamGame = new Set(s.teamOf).size < s.players;
  if (teamGame) return new Set([...s.teamOf.keys()].filter((x) => s.teamOf[x] === s.teamOf[s.seat]));
  if (s.family !== 'five-handed' || s.bidder === null) return new Set([s.seat]);
  const partner = s.view.partner === undefined || s.view.partner === null ? null : s.view.partner;
  const all = [...Array(s.players).keys()];
  if (s.seat === s.bidder) return new Set([s.seat, ...(partner === null ? [] : [partner])]);
  if (partner === s.seat) return new Set([s.seat, s.bidder]);
  if (partner === null && s.view.partner_card && s.hand.includes(s.view.partner_card)) {
    return new Set([s.seat, s.bidder]); // I hold the called card: the secret partner
  }
  if (partner !== null || (s.contract && s.contract.alone)) {
    return new Set(all.filter((x) => x !== s.bidder && x !== partner)); // the defenders
  }
  return new Set([s.seat]); // partner not known yet: trust nobody
}

// ---------------------------------------------------------------------------- hand strength

/**
 * Rough number of tricks a hand takes by itself with `strain` ("S".."C" or
 * "NT") as trump. Decks with copies of each card make every honour less sure.
 */
function estimateTricks(hand, strain, deck = { copies: 1 }) {
  const trump = C.trumpOf(strain);
  let est = 0;
  const trumps = hand.filter((c) => C.isTrump(c, trump));
  // Trumps held in an unbroken run from the top (right bower, left bower, A...) are sure tricks.
  const ranks = [...new Set(trumps.map((c) => C.rankInSuit(c, trump)))].sort((a, b) => b - a);
  let top = 8;
  for (const r of ranks) {
    const inRun = r === top || (top === 3 && r === 2); // no Jack of trump below the bowers: K, Q, then 10
    est += inRun ? 1.0 : ({ 8: 1.0, 7: 0.85, 6: 0.7, 5: 0.45 }[r] || 0.3);
    if (inRun) top = r - 1;
    else top = -1;
  }
  est += 0.3 * (trumps.length - ranks.length); // duplicate copies of a trump
  if (trumps.length >= 3) est += 0.35 * (trumps.length - 2);
  for (const c of hand) {
    if (C.isTrump(c, trump)) continue;
    const suit = C.effectiveSuit(c, trump);
    const rank = C.rankOf(c);
    if (rank === 'A') est += trump === null ? 0.85 : 0.7;
    else if (rank === 'K' && hand.some((x) => C.rankOf(x) === 'A' && C.effectiveSuit(x, trump) === suit)) {
      est += trump === null ? 0.45 : 0.3;
    }
  }
  // With copies of every card an honour is less sure (an identical card played earlier beats it).
  return Math.min(hand.length, est * (deck.copies > 1 ? 1 - 0.075 * deck.copies : 1));
}

/** [strain, estimate] of the best strain among `options`. */
function bestStrain(hand, deck, options = C.STRAINS) {
  let best = [options[0], -1];
  for (const st of options) {
    const e = estimateTricks(hand, st, deck);
    if (e > best[1]) best = [st, e];
  }
  return best;
}

/** Tricks the rest of my side usually adds (five-handed: the widow and the called partner). */
function support(s) {
  if (s.family === 'five-handed') return 2.0;
  const mates = s.teamOf.filter((t, seat) => t === s.teamOf[s.seat] && seat !== s.seat).length;
  // About one trick per partner in a 6-card deal, fewer each as partners get more numerous (they share
  // the same tricks with the other team's extra players).
  return 0.8 * Math.sqrt(mates) * s.handSize / 6;
}

// ---------------------------------------------------------------------------- decisions

function decide(request, game) {
  const s = situation(request, game);
  const handler = HANDLERS[s.kind];
  return handler ? handler(s) : s.legal[0];
}

/** "bid 4 H" -> { level: "4", n: 4, strain: "H" }; "bid pepper" -> { level: "pepper", n: null, strain: null }. */
function parseBid(action) {
  const w = action.trim().split(/\s+/);
  if (w[0].toLowerCase() !== 'bid' || w.length < 2) return null;
  const n = /^\d+$/.test(w[1]) ? Number(w[1]) : null;
  return { action, level: w[1].toLowerCase(), n, strain: w[2] ? w[2].toUpperCase() : null };
}

function bid(s) {
  const bids = s.legal.map(parseBid).filter(Boolean);
  const canPass = s.legal.some((a) => norm(a) === 'pass');
  if (bids.length === 0) return 'pass';
  if (s.family === 'five-handed') {
    const endgame = fiveHandedEndgame(s, bids);
    if (endgame) return endgame;
  }
  const [strain, est] = bestStrain(s.hand, s.deck);
  const inStrain = (b) => b.strain === null || b.strain === strain;
  // A near-certain hand for every trick alone: the cheapest special bid (Pepper...).
  const specials = bids.filter((b) => b.n === null && inStrain(b));
  if (specials.length && est >= s.handSize - 0.4) return specials[0].action;
  // What my side should take: my hand plus what partners usually add, if my hand holds something.
  const want = est < 1 ? 0 : Math.floor(est + support(s) - 0.25);
  const numbers = bids.filter((b) => b.n !== null && inStrain(b));
  const fits = numbers.filter((b) => b.n <= want);
  if (fits.length) {
    // pepper-30 is a round-and-round auction: raise as little as needed.
    // The other rulesets bid once: bid what the hand is worth.
    return s.family === 'pepper-30' ? fits[0].action : fits[fits.length - 1].action;
  }
  if (canPass) return 'pass';
  return (numbers[0] || bids[0]).action; // the dealer must bid: the cheapest
}

/**
 * five-handed: only the winning bidder can end the game, by finishing the deal
 * at the target or above, even with its contract set. With enough points to
 * stay there whatever happens, bid as high as that allows; when the standing
 * bidder could end the game that way, outbid it as cheaply as possible.
 */
function fiveHandedEndgame(s, bids) {
  const scores = s.view.scores || [];
  const mine = scores[s.teamOf[s.seat]];
  if (!s.target || mine === undefined) return null;
  const loss = (b) => (b.n !== null ? b.n : { pepper: 12, 'moon-shot': 18 }[b.level] || Infinity);
  const safe = bids.filter((b) => mine - loss(b) >= s.target);
  if (safe.length) return safe[safe.length - 1].action;
  const standing = [...(s.view.bids || [])].reverse().find((b) => norm(b.action) !== 'pass');
  if (standing && standing.seat !== s.seat) {
    const b = parseBid(standing.action);
    const theirs = scores[s.teamOf[standing.seat]];
    if (b && theirs !== undefined && theirs - loss(b) >= s.target) {
      const cheapest = bids.filter((x) => x.n !== null)[0] || bids[0];
      return cheapest.action;
    }
  }
  return null;
}

function nameTrump(s) {
  const options = s.legal.map((a) => a.trim().split(/\s+/)[1]).filter(Boolean).map((x) => x.toUpperCase());
  const [strain] = bestStrain(s.hand, s.deck, options.length ? options : C.STRAINS);
  return `trump ${strain}`;
}

/** The card worth most to a teammate: the best trump, else the best Ace, else the best card. */
function bestCard(cards, trump) {
  const byStrength = [...cards].sort((a, b) => C.strength(b, trump) - C.strength(a, trump));
  return byStrength.find((c) => C.isTrump(c, trump)) || byStrength.find((c) => C.rankOf(c) === 'A') || byStrength[0];
}

/** The card I miss least: no trump if avoidable, no Ace, the lowest, from the shortest suit. */
function weakestCard(cards, s) {
  const length = (c) => s.hand.filter((x) => C.effectiveSuit(x, s.trump) === C.effectiveSuit(c, s.trump)).length;
  const key = (c) => [C.isTrump(c, s.trump) ? 1 : 0, C.rankOf(c) === 'A' ? 1 : 0, C.rankInSuit(c, s.trump), length(c)];
  return [...cards].sort((a, b) => compareKeys(key(a), key(b)))[0];
}

function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

const cardsOf = (legal, verb) => legal.map((a) => a.trim().split(/\s+/))
  .filter((w) => w[0].toLowerCase() === verb && w[1] && w[1].toLowerCase() !== 'none').map((w) => w[1].toUpperCase());

function giveCard(s) {
  const cards = cardsOf(s.legal, 'give');
  if (cards.length === 0) return s.legal[0];
  if (s.seat === s.bidder) return `give ${weakestCard(cards, s)}`; // iowa: the bidder gives back its weakest
  const best = bestCard(cards, s.trump);
  const canDecline = s.legal.some((a) => norm(a) === 'give none');
  if (canDecline && !C.isTrump(best, s.trump) && C.rankOf(best) !== 'A' && !lastTeammateAsked(s)) {
    return 'give none'; // bid-euchre: nothing worth passing, a later teammate may have better
  }
  return `give ${best}`;
}

/** bid-euchre Pepper: teammates are asked from the bidder's left; am I the last one? */
function lastTeammateAsked(s) {
  if (s.bidder === null) return true;
  const mates = [...Array(s.players).keys()]
    .filter((x) => x !== s.bidder && s.teamOf[x] === s.teamOf[s.bidder])
    .sort((a, b) => ((a - s.bidder + s.players) % s.players) - ((b - s.bidder + s.players) % s.players));
  return mates[mates.length - 1] === s.seat;
}

function discard(s) {
  const cards = cardsOf(s.legal, 'discard');
  return cards.length ? `discard ${weakestCard(cards, s)}` : s.legal[0];
}

/** iowa defenders: cede only when no card of mine could take a trick. */
function cede(s) {
  const trumps = s.hand.filter((c) => C.isTrump(c, s.trump));
  const threats = s.hand.filter((c) => {
    if (C.isTrump(c, s.trump)) return C.rankInSuit(c, s.trump) >= 5; // K of trump or better
    if (C.rankOf(c) === 'A') return true;
    const suitLen = s.hand.filter((x) => C.effectiveSuit(x, s.trump) === C.effectiveSuit(c, s.trump)).length;
    return s.trump === null && C.rankOf(c) === 'K' && suitLen >= 2; // a guarded King in no-trump
  });
  return threats.length === 0 && trumps.length < 2 ? 'cede yes' : 'cede no';
}

// ---------------------------------------------------------------------------- play

function play(s) {
  const cards = [...new Set(cardsOf(s.legal, 'play'))];
  if (cards.length === 0) return s.legal[0];
  if (cards.length === 1) return `play ${cards[0]}`;
  return `play ${s.trick.length === 0 ? lead(s, cards) : follow(s, cards)}`;
}

const lowest = (cards, trump) => cards.reduce((a, b) => (C.strength(b, trump) < C.strength(a, trump) ? b : a));
const highest = (cards, trump) => cards.reduce((a, b) => (C.strength(b, trump) > C.strength(a, trump) ? b : a));

/** Get rid of the least useful card when not following suit: the lowest non-trump. */
function slough(cards, s) {
  const plain = cards.filter((c) => !C.isTrump(c, s.trump));
  return lowest(plain.length ? plain : cards, s.trump);
}

function follow(s, cards) {
  const winner = C.trickWinner(s.trick, s.trump);
  const led = C.effectiveSuit(s.trick[0].card, s.trump);
  const following = cards.every((c) => C.effectiveSuit(c, s.trump) === led);
  const side = mySide(s);
  if (side.has(winner.seat) && winner.seat !== s.seat) {
    return following ? lowest(cards, s.trump) : slough(cards, s); // partner wins: play low
  }
  const winners = cards.filter((c) => C.beats(c, winner.card, led, s.trump));
  if (winners.length) return lowest(winners, s.trump); // an opponent wins: take it as cheaply as possible
  return following ? lowest(cards, s.trump) : slough(cards, s);
}

function lead(s, cards) {
  const side = mySide(s);
  const offence = s.bidder !== null && side.has(s.bidder);
  const trumps = cards.filter((c) => C.isTrump(c, s.trump));
  const master = (c) => C.isMaster(c, s.trump, s.hand, s.played, s.deck);
  if (offence && trumps.length) {
    const top = highest(trumps, s.trump);
    if (master(top) || (s.seat === s.bidder && trumps.length >= 2)) return top; // draw trumps
  }
  const winners = cards.filter((c) => !C.isTrump(c, s.trump) && master(c));
  if (winners.length) return highest(winners, s.trump); // a side-suit Ace (or what is left on top)
  if (offence && trumps.length) return lowest(trumps, s.trump);
  return slough(cards, s);
}

const HANDLERS = {
  bid, name_trump: nameTrump, exchange: () => 'exchange yes', give_card: giveCard, discard, cede, play,
};

module.exports = { decide, estimateTricks, bestStrain, situation, mySide, guessFamily, parseBid };
