'use strict';
// The pepper.v1 client: one Connect stream to the referee, many games on it.
//
// Hello -> Welcome, then for every Batch: remember game starts, answer every
// request, log notices and game ends. The referee sends the next Batch only
// once the previous one is fully answered. It times a connection's requests
// one at a time, each from when the bot could start on it (its previous
// AnswerBatch arrived), and answers sent together share their time
// (docs/protocol.md, "Time"): so the answers decided so far are sent whenever
// FLUSH_AFTER_MS has passed since the Batch began or the last send, and the
// rest at the end of the Batch. A fast strategy still sends one AnswerBatch
// per Batch; a slow one's decisions each get the whole deadline. If the stream
// drops, reconnect with exponential backoff; stop() ends it cleanly. A
// DRAINING notice (protocol 1.3: the tournament is over) ends the run with
// exit code 0 once the bot's games are over, instead of reconnecting.

const path = require('node:path');
const fs = require('node:fs');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

/** Answers decided are sent once this long has passed since the Batch began or the last send (see above). */
const FLUSH_AFTER_MS = 20;
/**
 * Keepalive pings, agreed with the referee: it accepts pings 20 s apart (referee/service/config.py,
 * MIN_PING_INTERVAL_MS; docs/protocol.md, "Keepalive"); pinging more often gets GOAWAY "too_many_pings".
 * The Python SDK pings at the same rate (sdk/python/pepper_bot/runner.py, KEEPALIVE_TIME_MS).
 */
const KEEPALIVE_TIME_MS = 30000;
const KEEPALIVE_TIMEOUT_MS = 10000; // no ping ack within this: the connection is dead, reconnect
/** The protocol files, straight from the repository: <repo>/proto (this file is <repo>/sample_bots/node/lib/client.js). */
const DEFAULT_PROTO_DIR = path.resolve(__dirname, '..', '..', '..', 'proto');
/** The pepper.v1 version it says in Hello: the repository's proto/VERSION (the Go and C++ kits build it in). */
const PROTOCOL_VERSION = fs.readFileSync(path.join(DEFAULT_PROTO_DIR, 'VERSION'), 'utf8').trim();
/** A refused Hello: retrying cannot help. */
const FATAL_CODES = new Set([
  grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT,
  grpc.status.FAILED_PRECONDITION, grpc.status.UNIMPLEMENTED,
]);

/** The BotService client constructor, loaded from the .proto files at run time (no generated code). */
function loadBotService(protoDir = DEFAULT_PROTO_DIR) {
  const definition = protoLoader.loadSync('pepper/v1/bot.proto', {
    includeDirs: [protoDir], // so that `import "pepper/v1/game.proto"` resolves
    keepCase: true, // fields as in the .proto: legal_actions, request_id...
    longs: String, // uint64 request ids as strings (sent back unchanged)
    enums: String, // "DECISION_KIND_PLAY" rather than 7
    defaults: true, // unset repeated fields are [] and scalars their zero value
    oneofs: true, // msg.message === "batch", item.item === "request"...
  });
  return grpc.loadPackageDefinition(definition).pepper.v1.BotService;
}

const norm = (a) => String(a).trim().toLowerCase().split(/\s+/).join(' ');

/** The referee keeps at most this much of an answer's fallback_detail. */
const MAX_FALLBACK_DETAIL = 200;

/**
 * What to answer: { action, fallback, detail }. The action is always one of
 * request.legal_actions (its exact text): the strategy's choice when it is
 * legal, else the first legal action, marked as a fallback
 * (STRATEGY_FALLBACK_RAISED when decide() threw, _ILLEGAL when it chose
 * something not listed) so that the referee counts it for the seat (protocol
 * 1.2). action is null when the request lists no legal action.
 */
function chooseAction(decide, request, game, log = () => {}) {
  const legal = Array.isArray(request.legal_actions) ? request.legal_actions : [];
  if (legal.length === 0) return { action: null, fallback: null, detail: '' };
  let fallback;
  let detail;
  try {
    const choice = decide(request, game);
    const found = legal.find((a) => norm(a) === norm(choice));
    if (found !== undefined) return { action: found, fallback: null, detail: '' };
    fallback = 'STRATEGY_FALLBACK_ILLEGAL';
    detail = `decide() returned ${JSON.stringify(choice)}`;
    log(`request ${request.request_id}: strategy chose ${JSON.stringify(choice)}, not legal; playing ${legal[0]}`);
  } catch (err) {
    fallback = 'STRATEGY_FALLBACK_RAISED';
    detail = `decide() threw ${err && err.name ? `${err.name}: ${err.message}` : String(err)}`;
    log(`request ${request.request_id}: strategy failed: ${err && err.stack ? err.stack : err}; playing ${legal[0]}`);
  }
  return { action: legal[0], fallback, detail: detail.slice(0, MAX_FALLBACK_DETAIL) };
}

class BotClient {
  /**
   * @param {object} o
   * @param {string} o.address   referee HOST:PORT
   * @param {string} o.token     the bot's token
   * @param {string} o.botName   the bot's registered name
   * @param {number} [o.maxBatch] most requests per Batch (0: the server's default)
   * @param {Function} o.decide  (request, game) => action text
   * @param {object} o.log       { debug, info, warn, error }
   * @param {string} [o.tlsCa]   PEM file of a CA: connect with TLS
   * @param {string} [o.protoDir]
   * @param {number} [o.keepaliveMs] keepalive ping interval (default KEEPALIVE_TIME_MS)
   */
  constructor(o) {
    this.o = { maxBatch: 0, minBackoffMs: 200, maxBackoffMs: 10000, keepaliveMs: KEEPALIVE_TIME_MS, ...o };
    this.log = o.log;
    const creds = o.tlsCa ? grpc.credentials.createSsl(fs.readFileSync(o.tlsCa)) : grpc.credentials.createInsecure();
    this.protoDir = o.protoDir || DEFAULT_PROTO_DIR;
    const BotService = loadBotService(this.protoDir);
    this.stub = new BotService(o.address, creds, {
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      'grpc.max_send_message_length': 16 * 1024 * 1024,
      'grpc.keepalive_time_ms': this.o.keepaliveMs,
      'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
      'grpc.keepalive_permit_without_calls': 1,
    });
    this.games = new Map(); // game_id -> { ruleset, family, players, hand_size, target_score, seats: Set }
    this.stats = { connections: 0, batches: 0, decisions: 0, fallbacks: 0, notices: 0, gamesEnded: 0 };
    this.stopping = false;
    this.drained = false; // the referee sent DRAINING: no more games; exit once the stream ends
    this.call = null;
    this.wakeUp = null;
  }

  /**
   * Serve until stop() or the referee drains. Resolves with the exit code: 0 after stop() or a drain, 2 if the
   * referee refuses the bot.
   */
  async run() {
    let attempt = 0;
    while (!this.stopping) {
      const end = await this.session();
      if (this.stopping) break;
      if (this.drained) {
        this.stopping = true;
        this.log.info(`the referee drained; exiting: ${this.summary()}`);
        break;
      }
      if (FATAL_CODES.has(end.code)) {
        this.log.error(`the referee refused the bot: ${end.reason}`);
        return 2;
      }
      if (end.welcomed) attempt = 0;
      const cap = Math.min(this.o.maxBackoffMs, this.o.minBackoffMs * 2 ** attempt);
      const delay = Math.round(cap / 2 + Math.random() * cap / 2);
      attempt += 1;
      this.log.warn(`stream to ${this.o.address} ended (${end.reason}); reconnecting in ${delay} ms`);
      await new Promise((resolve) => {
        this.wakeUp = resolve;
        setTimeout(resolve, delay);
      });
      this.wakeUp = null;
    }
    this.stub.close();
    return 0;
  }

  /** End the stream (the referee sees the bot leave) and stop reconnecting. */
  stop(why = 'stopping') {
    if (this.stopping) return;
    this.stopping = true;
    this.log.info(`${why}: ${this.summary()}`);
    if (this.wakeUp) this.wakeUp();
    const call = this.call;
    if (call) {
      call.end(); // half-close: the referee reads EOF and closes its side
      setTimeout(() => call.cancel(), 1000).unref();
    }
  }

  summary() {
    const s = this.stats;
    return `${s.decisions} decisions (${s.fallbacks} fallbacks) in ${s.batches} batches, ${s.gamesEnded} seats ended, `
      + `${s.notices} notices, ${s.connections} connections`;
  }

  /** One stream: Hello, then Batches until it ends. Resolves with { welcomed, code, reason }. */
  session() {
    return new Promise((resolve) => {
      let welcomed = false;
      let error = null;
      let batches = Promise.resolve();
      this.games.clear(); // seats belong to a connection: a new one starts with none
      const call = this.stub.Connect();
      this.call = call;
      call.on('data', (msg) => {
        if (msg.message === 'welcome') {
          welcomed = true;
          this.stats.connections += 1;
          const w = msg.welcome;
          this.log.info(`connected to ${this.o.address} as ${w.connection_id} `
            + `(protocol ${w.protocol_version}, batches of up to ${w.max_batch})`);
        } else if (msg.message === 'batch') {
          const send = (answers) => {
            if (this.stopping) return;
            try {
              call.write({ answers: { answers } });
            } catch (err) {
              this.log.error(`cannot send ${answers.length} answers: ${err.message}; reconnecting`);
              call.cancel();
            }
          };
          // Batches are handled one after another (a slow one yields to the event loop to send its answers).
          batches = batches.then(() => this.onBatch(msg.batch, send)).then(() => {
            // Nothing left to play after a DRAINING notice: end the stream rather than wait for the referee.
            if (this.drained && this.games.size === 0 && !call.writableEnded) call.end();
          }).catch((err) => this.log.error(`cannot handle a batch: ${err && err.stack ? err.stack : err}`));
        }
      });
      call.on('error', (err) => { error = err; }); // followed by 'status'
      call.on('status', (status) => {
        this.call = null;
        const code = error ? error.code : status.code;
        const reason = error ? `${grpc.status[code] || code}: ${error.details || error.message}`
          : 'the referee closed the stream';
        resolve({ welcomed, code, reason });
      });
      call.write({
        hello: {
          bot_name: this.o.botName, protocol_version: PROTOCOL_VERSION, token: this.o.token,
          max_batch: this.o.maxBatch,
        },
      });
    });
  }

  /**
   * Handle every item of a Batch in order, and send(answers) as they are decided: whenever FLUSH_AFTER_MS has
   * passed since the Batch began or the last send (then yield to the event loop, so that they go out now), and
   * the rest at the end.
   */
  async onBatch(batch, send) {
    this.stats.batches += 1;
    let answers = [];
    let since = Date.now();
    for (const item of (batch && batch.items) || []) {
      try {
        if (item.item === 'request') answers.push(this.answer(item.request));
        else if (item.item === 'game_start') this.onGameStart(item.game_start);
        else if (item.item === 'game_end') this.onGameEnd(item.game_end);
        else if (item.item === 'notice') this.onNotice(item.notice);
        // 'event': everything this strategy needs is in each request's view.
      } catch (err) {
        this.log.error(`cannot handle a ${item && item.item} item: ${err && err.stack ? err.stack : err}`);
        if (item && item.item === 'request' && item.request) {
          answers.push({
            request_id: item.request.request_id, action_index: 0, fallback: 'STRATEGY_FALLBACK_RAISED',
            fallback_detail: `the client failed: ${err && err.message ? err.message : err}`.slice(0, MAX_FALLBACK_DETAIL),
          });
        }
      }
      if (answers.length > 0 && Date.now() - since >= FLUSH_AFTER_MS) {
        send(answers);
        answers = [];
        await new Promise((resolve) => { setImmediate(resolve); });
        since = Date.now();
      }
    }
    if (answers.length > 0) send(answers);
  }

  answer(req) {
    this.stats.decisions += 1;
    const game = this.games.get(req.game_id);
    const { action, fallback, detail } = chooseAction(this.o.decide, req, game, (m) => {
      this.stats.fallbacks += 1;
      this.log.warn(`game ${req.game_id}: ${m}`);
    });
    if (action === null) {
      this.log.warn(`game ${req.game_id}: request ${req.request_id} lists no legal action`);
      return { request_id: req.request_id, game_id: req.game_id, action_index: 0 };
    }
    this.log.debug(`game ${req.game_id} seat ${req.seat}: ${action}`);
    const answer = { request_id: req.request_id, game_id: req.game_id, action };
    if (fallback) Object.assign(answer, { fallback, fallback_detail: detail });
    return answer;
  }

  onGameStart(gs) {
    const r = gs.ruleset || {};
    const g = this.games.get(gs.game_id) || {
      ruleset: r.name, family: r.family, players: gs.players, hand_size: r.hand_size, target_score: r.target_score,
      seats: new Set(),
    };
    g.seats.add(gs.seat);
    this.games.set(gs.game_id, g);
    this.log.debug(`game ${gs.game_id}: seat ${gs.seat} of ${gs.players}, ${r.name} (${r.family}), `
      + `${gs.deadline_ms} ms per decision`);
  }

  onGameEnd(ge) {
    this.stats.gamesEnded += 1;
    const g = this.games.get(ge.game_id);
    if (g) {
      g.seats.delete(ge.seat);
      if (g.seats.size === 0) this.games.delete(ge.game_id);
    }
    const o = ge.outcome || {};
    this.log.debug(`game ${ge.game_id} seat ${ge.seat}: ${ge.status} ${ge.seat_status} `
      + `scores [${o.scores || []}] ${ge.reason || o.reason || ''}`);
  }

  onNotice(n) {
    this.stats.notices += 1;
    if (n.code === 'NOTICE_CODE_DRAINING') {
      this.drained = true;
      this.log.info(`the referee is draining: ${n.message || 'no reason given'}`);
      return;
    }
    this.log.warn(`notice ${n.code} game ${n.game_id || '-'} request ${n.request_id}: ${n.message}`
      + `${n.fallback_action ? ` (fallback: ${n.fallback_action})` : ''}`);
  }
}

module.exports = {
  BotClient, loadBotService, chooseAction, PROTOCOL_VERSION, DEFAULT_PROTO_DIR, KEEPALIVE_TIME_MS, FLUSH_AFTER_MS,
};
