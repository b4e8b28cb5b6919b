'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { decide, estimateTricks } = require('../lib/strategy');
const { chooseAction } = require('../lib/client');

// A DecisionRequest as the client receives it (snake_case, enums as names).
function request(kind, view, legal) {
  return {
    game_id: 'g1', request_id: '7', kind: `DECISION_KIND_${kind}`, legal_actions: legal,
    view: {
      ruleset: 'iowa', players: 4, seat: 0, team_of: [0, 1, 0, 1], dealer: 3, hand: [], bids: [],
      contract: null, trick: [], tricks: [], sitting_out: [], partner_card: '', ...view,
    },
  };
}
const IOWA = { family: 'iowa', players: 4, hand_size: 6 };
const IOWA_BIDS = ['pass', 'bid 1', 'bid 2', 'bid 3', 'bid 4', 'bid 5', 'bid 6', 'bid pepper'];
const plays = (...cards) => cards.map((c) => `play ${c}`);

test('hand strength: bowers and length make a trump suit', () => {
  const hand = ['JH', 'JD', 'AH', 'KH', 'AS', '9C'];
  assert.ok(estimateTricks(hand, 'H') > 4);
  assert.ok(estimateTricks(hand, 'H') > estimateTricks(hand, 'S'));
  assert.ok(estimateTricks(['9S', '10S', '9H', '10H', '9D', '10C'], 'S') < 1);
});

test('bids what a strong hand is worth, passes a weak one', () => {
  const strong = request('BID', { hand: ['JH', 'JD', 'AH', 'KH', 'AS', 'QH'] }, IOWA_BIDS);
  assert.ok(['bid 5', 'bid 6', 'bid pepper'].includes(decide(strong, IOWA)), decide(strong, IOWA));
  const weak = request('BID', { hand: ['9S', '10S', '9H', '10H', '9D', '10C'] }, IOWA_BIDS);
  assert.equal(decide(weak, IOWA), 'pass');
  const perfect = request('BID', { hand: ['JS', 'JC', 'AS', 'KS', 'QS', '10S'] }, IOWA_BIDS);
  assert.equal(decide(perfect, IOWA), 'bid pepper');
});

test('bid-euchre bids name the best strain', () => {
  const legal = ['pass'];
  for (let n = 1; n <= 8; n++) for (const s of ['S', 'H', 'D', 'C', 'NT']) legal.push(`bid ${n} ${s}`);
  const r = request('BID', { ruleset: 'bid-euchre', hand: ['JC', 'JS', 'AC', 'KC', 'QC', 'AH', 'KD', 'QD'] }, legal);
  const a = decide(r, { family: 'bid-euchre', players: 4, hand_size: 8 });
  assert.match(a, /^bid \d C$/);
});

test('the dealer who must bid bids the cheapest in the best strain', () => {
  const r = request('BID', { hand: ['9S', '10S', '9H', '10H', '9D', 'QC'] }, ['bid 1', 'bid 2', 'bid 3']);
  assert.equal(decide(r, IOWA), 'bid 1');
});

test('names the best trump', () => {
  const r = request('NAME_TRUMP', { hand: ['JD', 'JH', 'AD', '10D', 'AS', '9C'] },
    ['trump S', 'trump H', 'trump D', 'trump C', 'trump NT']);
  assert.equal(decide(r, IOWA), 'trump D');
  const nt = request('NAME_TRUMP', { hand: ['AS', 'KS', 'AH', 'KH', 'AD', 'AC'] },
    ['trump S', 'trump H', 'trump D', 'trump C', 'trump NT']);
  assert.equal(decide(nt, IOWA), 'trump NT');
});

test('Pepper exchange: the partner passes its best trump, the bidder gives back its weakest', () => {
  const contract = { bidder: 2, bid: 'pepper', trump: 'S', alone: true };
  const hand = ['AH', 'JC', '9S', 'KD', '10D', 'QC'];
  const partner = request('GIVE_CARD', { seat: 0, hand, contract }, hand.map((c) => `give ${c}`));
  assert.equal(decide(partner, IOWA), 'give JC'); // the left bower, not the Ace of hearts
  const bidderHand = ['JS', 'JC', 'AS', 'KS', '9D', 'AH'];
  const bidder = request('GIVE_CARD', { seat: 2, hand: bidderHand, contract }, bidderHand.map((c) => `give ${c}`));
  assert.equal(decide(bidder, IOWA), 'give 9D');
});

test('bid-euchre Pepper: a teammate with nothing useful declines unless it is the last asked', () => {
  const game = { family: 'bid-euchre', players: 6, hand_size: 8 };
  const contract = { bidder: 1, bid: 'pepper', trump: 'H', alone: true };
  const hand = ['QS', 'KS', 'QC', 'KC', 'QD', 'KD', 'JC', 'JS'];
  const legal = [...hand.map((c) => `give ${c}`), 'give none'];
  const view = { ruleset: 'bid-euchre', players: 6, team_of: [0, 1, 0, 1, 0, 1], contract, hand };
  assert.equal(decide(request('GIVE_CARD', { ...view, seat: 3 }, legal), game), 'give none');
  assert.match(decide(request('GIVE_CARD', { ...view, seat: 5 }, legal), game), /^give K[SCD]$/);
});

test('discards the weakest card: no trump, no Ace, lowest of a short suit', () => {
  const contract = { bidder: 0, bid: '5', trump: 'H', alone: false };
  const hand = ['AS', 'QS', 'KH', 'QH', 'JD', 'KC', 'QC', 'AC', 'KD'];
  const r = request('DISCARD', { ruleset: 'five-handed', players: 5, team_of: [0, 1, 2, 3, 4], contract, hand },
    hand.map((c) => `discard ${c}`));
  assert.equal(decide(r, { family: 'five-handed', players: 5, hand_size: 9 }), 'discard QS');
});

test('cedes only a hopeless hand', () => {
  const contract = { bidder: 1, bid: 'pepper', trump: 'S', alone: true };
  const hopeless = request('CEDE', { seat: 2, contract, hand: ['9H', '10H', '9D', 'QD', '10C', 'KH'] }, ['cede no', 'cede yes']);
  assert.equal(decide(hopeless, IOWA), 'cede yes');
  const ace = request('CEDE', { seat: 2, contract, hand: ['9H', '10H', '9D', 'QD', '10C', 'AH'] }, ['cede no', 'cede yes']);
  assert.equal(decide(ace, IOWA), 'cede no');
  const leftBower = request('CEDE', { seat: 2, contract, hand: ['9H', '10H', '9D', 'QD', 'JC', 'KH'] }, ['cede no', 'cede yes']);
  assert.equal(decide(leftBower, IOWA), 'cede no');
});

test('wins cheaply when an opponent is winning', () => {
  const contract = { bidder: 0, bid: '3', trump: 'H', alone: false };
  const trick = [{ seat: 3, card: 'KS' }];
  const r = request('PLAY', { contract, trick, hand: ['AS', 'QS', '9H', 'JD'] }, plays('AS', 'QS'));
  assert.equal(decide(r, IOWA), 'play AS');
  const ruff = request('PLAY', { contract, trick, hand: ['9H', 'JD', 'AD'] }, plays('9H', 'JD', 'AD'));
  assert.equal(decide(ruff, IOWA), 'play 9H'); // the smallest trump, not the left bower
  const cannot = request('PLAY', { contract, trick: [{ seat: 3, card: 'JH' }], hand: ['AH', 'KH'] }, plays('AH', 'KH'));
  assert.equal(decide(cannot, IOWA), 'play KH');
});

test('plays low when the partner is winning', () => {
  const contract = { bidder: 2, bid: '3', trump: 'H', alone: false };
  const trick = [{ seat: 2, card: 'AS' }, { seat: 3, card: '9S' }];
  const r = request('PLAY', { contract, trick, hand: ['KS', '10S', 'JH'] }, plays('KS', '10S'));
  assert.equal(decide(r, IOWA), 'play 10S');
  const void_ = request('PLAY', { contract, trick, hand: ['JH', 'QD', 'AC'] }, plays('JH', 'QD', 'AC'));
  assert.equal(decide(void_, IOWA), 'play QD'); // no trumping partner's trick: slough
});

test('the declarer leads high trumps, then Aces', () => {
  const contract = { bidder: 0, bid: '4', trump: 'S', alone: false };
  const r = request('PLAY', { contract, hand: ['JS', 'AS', '9S', 'AH', '10D', 'QC'] },
    plays('JS', 'AS', '9S', 'AH', '10D', 'QC'));
  assert.equal(decide(r, IOWA), 'play JS');
  const noTrump = request('PLAY', { contract, hand: ['AH', '10D', 'QC'] }, plays('AH', '10D', 'QC'));
  assert.equal(decide(noTrump, IOWA), 'play AH');
});

test('five-handed: the holder of the called card plays low under the bidder', () => {
  const game = { family: 'five-handed', players: 5, hand_size: 9 };
  const contract = { bidder: 1, bid: '5', trump: 'S', alone: false };
  const view = { ruleset: 'five-handed', players: 5, seat: 3, team_of: [0, 1, 2, 3, 4], contract,
    partner_card: 'JS', trick: [{ seat: 1, card: 'AH' }, { seat: 2, card: 'QH' }], hand: ['JS', 'KH', 'JH', 'AD'] };
  assert.equal(decide(request('PLAY', view, plays('KH', 'JH')), game), 'play JH');
  const defender = { ...view, hand: ['KS', 'KH', 'JH', 'AD'] }; // not the partner: KH cannot win either
  assert.equal(decide(request('PLAY', defender, plays('KH', 'JH')), game), 'play JH');
});

test('the guard: always a legal action, whatever the strategy or the request', () => {
  const r = request('PLAY', { hand: ['AS'] }, ['play AS', 'play KS']);
  assert.deepEqual(chooseAction(() => { throw new Error('boom'); }, r, IOWA),
    { action: 'play AS', fallback: 'STRATEGY_FALLBACK_RAISED', detail: 'decide() threw Error: boom' });
  assert.deepEqual(chooseAction(() => 'play 9H', r, IOWA),
    { action: 'play AS', fallback: 'STRATEGY_FALLBACK_ILLEGAL', detail: 'decide() returned "play 9H"' });
  assert.deepEqual(chooseAction(() => '  PLAY   ks ', r, IOWA), { action: 'play KS', fallback: null, detail: '' }); // sent as listed
  assert.equal(chooseAction(decide, { ...r, view: null }, undefined).action, 'play AS');
  assert.equal(decide({ ...r, view: { hand: ['AS', 'KS'], trick: [] } }, null), 'play AS'); // no GameStart seen
  assert.equal(chooseAction(decide, { legal_actions: [] }, undefined).action, null);
  const garbage = request('PLAY', { hand: ['XX'], trick: [{ seat: 1, card: '??' }] }, ['play QQ', 'play AS']);
  assert.ok(['play QQ', 'play AS'].includes(chooseAction(decide, garbage, undefined).action));
  const long = chooseAction(() => { throw new Error('x'.repeat(500)); }, r, IOWA);
  assert.equal(long.detail.length, 200); // the referee keeps at most 200 characters
});

test('five-handed: with points to spare at the target, take the contract (the bidder wins even if set)', () => {
  const game = { family: 'five-handed', players: 5, hand_size: 9, target_score: 51 };
  const legal = ['pass', 'bid 3', 'bid 4', 'bid 5', 'bid 6', 'bid 7', 'bid 8', 'bid 9', 'bid pepper', 'bid moon-shot'];
  const view = { ruleset: 'five-handed', players: 5, seat: 2, dealer: 1, team_of: [0, 1, 2, 3, 4],
    hand: ['QS', 'QH', 'QD', 'QC', 'KS', 'KH', 'JD', 'QS', 'KC'] };
  const plain = decide(request('BID', view, legal), { ...game, target_score: undefined });
  assert.equal(decide(request('BID', { ...view, scores: [0, 0, 20, 0, 0] }, legal), game), plain);
  assert.equal(decide(request('BID', { ...view, scores: [0, 0, 58, 0, 0] }, legal), game), 'bid 7');
  assert.equal(decide(request('BID', { ...view, scores: [0, 0, 75, 0, 0] }, legal), game), 'bid moon-shot');
  // the standing bidder would end the game: outbid it
  const threat = { ...view, scores: [60, 0, 10, 0, 0], bids: [{ seat: 0, action: 'bid 4' }] };
  assert.equal(decide(request('BID', threat, legal.filter((a) => a === 'pass' || !/bid [34]$/.test(a))), game), 'bid 5');
});
