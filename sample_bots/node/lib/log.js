'use strict';
// A tiny leveled logger writing one line per message to stderr (stdout stays free).

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 };

function makeLogger(level = 'info', name = 'pepper-node-bot') {
  const key = String(level).toLowerCase();
  const min = LEVELS[key === 'warning' ? 'warn' : key] || LEVELS.info;
  const out = {};
  for (const [lvl, n] of Object.entries(LEVELS)) {
    out[lvl] = n < min ? () => {} : (msg) => {
      process.stderr.write(`${new Date().toISOString()} ${name} ${lvl.toUpperCase()} ${msg}\n`);
    };
  }
  return out;
}

module.exports = { makeLogger, LEVELS };
