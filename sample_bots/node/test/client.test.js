'use strict';
// The client sends answers as they are decided when deciding is slow (the referee times each request from the
// bot's previous AnswerBatch), and one AnswerBatch per Batch when it is fast.
const test = require('node:test');
const assert = require('node:assert');
const { BotClient, FLUSH_AFTER_MS } = require('../lib/client');

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function batchOf(n) {
  return {
    items: Array.from({ length: n }, (_, k) => ({
      item: 'request', request: { request_id: String(10 + k), game_id: `g${k}`, seat: 0, legal_actions: ['pass', 'bid 3'] },
    })),
  };
}

function client(decide) {
  return new BotClient({ address: '127.0.0.1:1', token: 't', botName: 'b', decide, log: quiet });
}

test('a fast strategy sends one AnswerBatch per Batch', async () => {
  const sent = [];
  const c = client(() => 'pass');
  await c.onBatch(batchOf(5), (answers) => sent.push(answers.map((a) => a.request_id)));
  c.stub.close();
  assert.deepStrictEqual(sent, [['10', '11', '12', '13', '14']]);
});

test('a slow strategy sends each answer when it is decided', async () => {
  const sent = [];
  const c = client(() => {
    const until = Date.now() + FLUSH_AFTER_MS * 1.5;
    while (Date.now() < until) { /* think */ }
    return 'bid 3';
  });
  await c.onBatch(batchOf(3), (answers) => sent.push(answers.map((a) => a.action)));
  c.stub.close();
  assert.deepStrictEqual(sent, [['bid 3'], ['bid 3'], ['bid 3']]);
});

test('Hello says the protocol version of the repository (proto/VERSION)', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { PROTOCOL_VERSION, DEFAULT_PROTO_DIR } = require('../lib/client');
  assert.strictEqual(PROTOCOL_VERSION, fs.readFileSync(path.join(DEFAULT_PROTO_DIR, 'VERSION'), 'utf8').trim());
  assert.match(PROTOCOL_VERSION, /^1\.\d+$/);
});
