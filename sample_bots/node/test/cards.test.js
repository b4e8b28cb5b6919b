'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const C = require('../lib/cards');

test('the left bower is a trump, not a card of its printed suit', () => {
  assert.equal(C.effectiveSuit('JD', 'H'), 'H');
  assert.equal(C.isTrump('JD', 'H'), true);
  assert.equal(C.effectiveSuit('JD', 'S'), 'D');
  assert.equal(C.effectiveSuit('JC', 'S'), 'S');
  assert.equal(C.effectiveSuit('JD', null), 'D'); // no-trump: no bowers
  assert.equal(C.isTrump('AD', null), false);
});

test('trump order: right bower, left bower, A, K, Q, 10, 9', () => {
  const order = ['JH', 'JD', 'AH', 'KH', 'QH', '10H', '9H'];
  const sorted = [...order].sort((a, b) => C.strength(b, 'H') - C.strength(a, 'H'));
  assert.deepEqual(sorted, order);
  assert.ok(C.strength('9H', 'H') > C.strength('AS', 'H')); // any trump beats any plain card
  // no-trump: A K Q J 10 9 in every suit
  assert.deepEqual(['9S', 'JS', 'AS', 'QS', '10S', 'KS'].sort((a, b) => C.strength(b, null) - C.strength(a, null)),
    ['AS', 'KS', 'QS', 'JS', '10S', '9S']);
});

test('trick winner: trump beats the suit led, off-suit cards never win', () => {
  const plays = [{ seat: 0, card: 'AD' }, { seat: 1, card: 'KS' }, { seat: 2, card: '9D' }];
  assert.equal(C.trickWinner(plays, 'H').seat, 0);
  // the left bower (JD with hearts trump) ruffs a diamond lead: it is not a diamond
  assert.equal(C.trickWinner([...plays, { seat: 3, card: 'JD' }], 'H').seat, 3);
  // led in no-trump: the Jack of diamonds is just a diamond
  assert.equal(C.trickWinner([{ seat: 0, card: 'QD' }, { seat: 1, card: 'JD' }], null).seat, 0);
});

test('of two identical cards the first played wins', () => {
  const plays = [{ seat: 0, card: 'AS' }, { seat: 1, card: 'AS' }];
  assert.equal(C.trickWinner(plays, 'H').seat, 0);
  assert.equal(C.beats('AS', 'AS', 'S', 'H'), false);
});

test('master cards count copies of the deck', () => {
  const single = C.deckFor('iowa', 4);
  assert.equal(C.isMaster('AS', 'H', ['AS'], [], single), true);
  assert.equal(C.isMaster('KS', 'H', ['KS'], [], single), false);
  assert.equal(C.isMaster('KS', 'H', ['KS'], ['AS'], single), true);
  assert.equal(C.isMaster('JD', 'H', ['JD'], [], single), false); // the right bower is out
  const triple = C.deckFor('five-handed', 5);
  assert.equal(triple.copies, 3);
  assert.equal(C.isMaster('KS', 'H', ['KS'], ['AS', 'AS'], triple), false);
  assert.equal(C.isMaster('KS', 'H', ['KS'], ['AS', 'AS', 'AS'], triple), true);
});

test('bad card text is refused', () => {
  assert.throws(() => C.parseCard('1S'));
  assert.throws(() => C.parseCard('JX'));
  assert.deepEqual(C.parseCard('10s'), { rank: '10', suit: 'S' });
});
