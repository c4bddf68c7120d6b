#!/usr/bin/env node
// js_bot: a random legal-move Skitgubbe bot in Node.js (no packages), protocol v1 on stdin/stdout.
//
// Answers `hello ...` with `hello name=js_bot ...`, answers
// `request <id> <count> <move_1> ... <move_count> <fields...>` with a random legal move,
// ignores every other message, and exits 0 on `quit` or end of input.
// The generator (mulberry32) is reseeded at every `game <number> seat=<s> ...` line from the
// game's number, the seat and BOT_SEED: the same game is played the same way whatever this
// process played before, so a resumed tournament equals an uninterrupted one.
// Diagnostics go to stderr only.
'use strict';

const readline = require('readline');

const baseSeed = process.env.BOT_SEED || '';
let state = 1;
function reseed(text) {
  // FNV-1a over the text: the same string gives the same stream on every platform
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  state = h;
}
reseed(baseSeed);
function random() {
  // mulberry32
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function send(line) {
  process.stdout.write(line + '\n'); // a pipe write from Node is not held back in a buffer
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });

rl.on('line', (raw) => {
  const line = raw.replace(/\r$/, '');
  const tokens = line.split(' ');
  switch (tokens[0]) {
    case 'hello':
      send('hello name=js_bot version=1.0 author=skitgubbe-arena');
      break;
    case 'request': {
      const id = tokens[1];
      const count = parseInt(tokens[2], 10);
      const moves = tokens.slice(3, 3 + (count > 0 ? count : 0));
      if (!id || moves.length === 0) {
        process.stderr.write(`js_bot: malformed request: ${line}\n`);
        break;
      }
      send(`move ${id} ${moves[Math.floor(random() * moves.length)]}`);
      break;
    }
    case 'game': {
      const seat = tokens.find((t) => t.startsWith('seat=')) || '';
      reseed(`${baseSeed}/${tokens[1] || ''}/${seat}`);
      break;
    }
    case 'quit':
      rl.close();
      process.exit(0);
      break;
    default:
      break; // match, event, fault, gameover, matchover, unknown: ignored
  }
});

rl.on('close', () => process.exit(0));
