#!/usr/bin/env node
'use strict';
// Pepper Arena sample bot in Node.js.
//
//   node bot.js --referee 127.0.0.1:50051 --name node-bot --token SECRET
//   PEPPER_REFEREE=127.0.0.1:50051 PEPPER_BOT_NAME=node-bot PEPPER_TOKEN=SECRET node bot.js
// (launched by the arena, it reads its token from the pipe PEPPER_TOKEN_FD names instead)
//
// Flags win over environment variables. Logs go to stderr. SIGTERM/SIGINT end
// the stream cleanly and exit 0, and so does the referee's DRAINING notice (the
// tournament is over); a referee that refuses the bot exits 2.

const fs = require('node:fs');
const { parseArgs } = require('node:util');
const { makeLogger } = require('./lib/log');
const { decide } = require('./lib/strategy');

let BotClient;
try {
  ({ BotClient } = require('./lib/client'));
} catch (err) {
  if (err.code !== 'MODULE_NOT_FOUND') throw err;
  process.stderr.write(`error: ${err.message.split('\n')[0]}\n`
    + `install the dependencies first: (cd ${__dirname} && npm ci)\n`);
  process.exit(2);
}

const USAGE = `usage: node bot.js [--referee HOST:PORT] [--token T] [--name NAME] [--max-batch N]
                   [--log-level debug|info|warn|error] [--tls-ca FILE] [--proto-dir DIR]

  --referee    referee address            env PEPPER_REFEREE    (default 127.0.0.1:50051)
  --token      the bot's token            env PEPPER_TOKEN      (required)
  --name       the bot's registered name  env PEPPER_BOT_NAME   (default node-heuristic)
  --max-batch  most requests per batch    env PEPPER_MAX_BATCH  (default 0: the server's default)
  --log-level  stderr verbosity           env PEPPER_LOG_LEVEL  (default info)
  --tls-ca     CA certificate (PEM): connect with TLS     env PEPPER_TLS_CA
  --proto-dir  where pepper/v1/*.proto are env PEPPER_PROTO_DIR (default ../../proto)

  env PEPPER_KEEPALIVE_MS: keepalive ping interval, ms (default 30000, what the referee expects)`;

// The bot's token: read to its end from the pipe whose descriptor PEPPER_TOKEN_FD names (how the arena hands it
// over: another process of the same user can read the environment in /proc, not a pipe already read), else
// PEPPER_TOKEN. Both are then removed from the environment, so that programs the bot starts do not inherit them.
function launchToken(env) {
  const fd = env.PEPPER_TOKEN_FD;
  let token = env.PEPPER_TOKEN || '';
  delete env.PEPPER_TOKEN;
  delete env.PEPPER_TOKEN_FD;
  if (fd !== undefined && fd !== '') {
    if (!/^\d+$/.test(fd)) throw new Error(`PEPPER_TOKEN_FD=${fd} is not a file descriptor`);
    token = fs.readFileSync(Number(fd), 'utf8').trim();
    fs.closeSync(Number(fd));
  }
  return token;
}

function config(argv, env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      referee: { type: 'string' }, token: { type: 'string' }, name: { type: 'string' },
      'max-batch': { type: 'string' }, 'log-level': { type: 'string' }, 'tls-ca': { type: 'string' },
      'proto-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const cfg = {
    help: Boolean(values.help),
    address: values.referee || env.PEPPER_REFEREE || '127.0.0.1:50051',
    token: values.token || launchToken(env),
    botName: values.name || env.PEPPER_BOT_NAME || 'node-heuristic',
    maxBatch: Number(values['max-batch'] || env.PEPPER_MAX_BATCH || 0),
    logLevel: values['log-level'] || env.PEPPER_LOG_LEVEL || 'info',
    tlsCa: values['tls-ca'] || env.PEPPER_TLS_CA || undefined,
    protoDir: values['proto-dir'] || env.PEPPER_PROTO_DIR || undefined,
    keepaliveMs: env.PEPPER_KEEPALIVE_MS === undefined ? undefined : Number(env.PEPPER_KEEPALIVE_MS),
  };
  if (!cfg.help && !cfg.token) {
    throw new Error('no token: pass --token, set PEPPER_TOKEN, or give it on the pipe PEPPER_TOKEN_FD names');
  }
  if (!Number.isInteger(cfg.maxBatch) || cfg.maxBatch < 0) throw new Error('--max-batch must be a whole number >= 0');
  if (cfg.keepaliveMs === undefined) delete cfg.keepaliveMs; // the client's default
  else if (!Number.isInteger(cfg.keepaliveMs) || cfg.keepaliveMs < 1) {
    throw new Error(`PEPPER_KEEPALIVE_MS must be a whole number of milliseconds >= 1, got ${env.PEPPER_KEEPALIVE_MS}`);
  }
  return cfg;
}

async function main() {
  let cfg;
  try {
    cfg = config(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`error: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (cfg.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const log = makeLogger(cfg.logLevel, `node-bot[${cfg.botName}]`);
  let client;
  try {
    client = new BotClient({ ...cfg, decide, log });
  } catch (err) {
    log.error(`cannot start: ${err.message}`);
    return 2;
  }
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => {
      if (client.stopping) process.exit(0); // a second signal: do not wait any longer
      client.stop(`received ${sig}`);
    });
  }
  process.on('uncaughtException', (err) => log.error(`uncaught: ${err && err.stack ? err.stack : err}`));
  log.info(`starting: referee ${cfg.address}, protocol files in ${client.protoDir}`);
  return client.run();
}

main().then((code) => {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2000).unref(); // don't hang on a half-closed channel
}, (err) => {
  process.stderr.write(`fatal: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
