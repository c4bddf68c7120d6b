/* The rules' state transitions of Skitgubbe (docs/rules.md, R1-R57 and A1-A5), for the replay page:
   a game is dealt from the cards the page carries, then each recorded move is applied, as the
   arena's own engine (arena/game/) does; nothing here chooses a move or checks more than that a
   move can be made. tests/report/test_replay_engine_js.py holds its state after every move to the
   arena's, under Node.js, for games of 2-5 players under many rule options.
   Cards are numbers 0..51, suit * 13 + rank - 1 (rank 1 is the ace), as in arena/game/cards.py. */
(function (root) {
  'use strict';

  const SUITS = 'cdhs';
  const RANKS = 'A23456789TJQK';

  function parseCard(text) {
    const rank = RANKS.indexOf(text[0]), suit = SUITS.indexOf(text[1]);
    if (text.length !== 2 || rank < 0 || suit < 0) throw new Error('not a card: ' + text);
    return suit * 13 + rank;
  }
  function cardText(c) { return RANKS[c % 13] + SUITS[Math.floor(c / 13)]; }
  function suitOf(c) { return Math.floor(c / 13); }
  function valueOf(g, c) { const r = c % 13 + 1; return g.aceHigh && r === 1 ? 14 : r; }  // R2
  function sortKey(g, c) { return valueOf(g, c) * 4 + suitOf(c); }  // R2, then c < d < h < s
  function sorted(g, cards) { return cards.slice().sort((a, b) => sortKey(g, a) - sortKey(g, b)); }
  function removeCard(list, c) {
    const at = list.indexOf(c);
    if (at < 0) throw new Error(cardText(c) + ' is not where the move takes it from');
    list.splice(at, 1);
  }

  function event(g, kind, seat, cards, count) {
    g.events.push({kind: kind, seat: seat === undefined ? null : seat, cards: cards || [], count: count || 0});
  }

  /* A game from its rules (arena/game/rules.py's options), its deal (hands as dealt, the stock top
     first, the cards set aside) and its dealer; the first trick starts as R13-R14 say. */
  function newGame(rules, deal, dealer) {
    const n = rules.num_players;
    const g = {
      rules: rules, n: n, dealer: dealer, aceHigh: !!rules.ace_high,
      hands: deal.hands.map(h => h.map(parseCard)), won: [], known: [],
      stock: deal.stock.map(parseCard).reverse(), setAside: deal.set_aside.map(parseCard),
      trumpCard: null, trumpHolder: null, trumpSuit: null, phase: 1, toAct: null, events: [], outcome: null,
      leader: 0, opponent: 0, trick: [], roundSeats: [], round: [], drawn: false, duel: [], lastTrickWinner: null,
      table: [], tableOwners: [], trickSize: 0, discard: [], out: [], pending: [], outOrder: [], inCount: n,
      phase2Actions: 0, moves: 0,
    };
    for (let s = 0; s < n; s++) { g.won.push([]); g.known.push(new Set()); g.out.push(false); g.pending.push(false); }
    start1(g);
    return g;
  }

  // ---- phase 1 (R11-R28, A1-A5) ------------------------------------------------------------

  function start1(g) {
    const n = g.n, p1 = (g.dealer + 1) % n, p2 = (g.dealer + 2) % n;
    let leader, opponent;
    if (n === 2) { leader = p1; opponent = g.dealer; }  // R14
    else if (g.rules.first_lead === 'forehand') { leader = p1; opponent = p2; }
    else { leader = duel(g, p1, p2); opponent = leader === p1 ? p2 : p1; }  // R13
    if (g.rules.phase1_mode === 'all') startTrick(g, leader, clockwiseFrom(g, leader, false));  // A1
    else startTrick(g, leader, [leader, opponent]);
  }

  function duel(g, p1, p2) {  // R13, E1: highest, then second, then third cards; P1 wins a full tie
    const order = s => g.hands[s].slice().sort((a, b) => (valueOf(g, b) - valueOf(g, a)) || (suitOf(b) - suitOf(a)));
    const a = order(p1), b = order(p2);
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      for (const [seat, c] of [[p1, a[i]], [p2, b[i]]]) {
        g.duel.push([seat, c]);
        g.known[seat].add(c);
        event(g, 'duel', seat, [c]);
      }
      if (valueOf(g, a[i]) !== valueOf(g, b[i])) return valueOf(g, a[i]) > valueOf(g, b[i]) ? p1 : p2;
    }
    return p1;
  }

  function clockwiseFrom(g, leader, holdersOnly) {
    const seats = [];
    for (let i = 0; i < g.n; i++) seats.push((leader + i) % g.n);
    return holdersOnly ? seats.filter(s => g.hands[s].length > 0) : seats;
  }

  function startTrick(g, leader, seats) {
    g.leader = leader;
    g.opponent = g.rules.phase1_mode === 'pair' ? seats[1] : null;
    g.roundSeats = seats;
    g.trick = [];
    g.round = [];
    beginTurn(g, leader);
  }

  function chanceAllowed(g) { return g.rules.allow_chance && g.stock.length >= g.rules.chance_min_stock; }  // R16, E2

  function beginTurn(g, seat) {
    g.toAct = seat;
    g.drawn = g.stock.length === 0;  // R16: no source step with an empty stock
    if (!g.drawn && g.rules.draw_timing === 'before' && !chanceAllowed(g)) {
      draw(g, seat);  // R16: a forced draw is made for the player
      g.drawn = true;
    }
  }

  function draw(g, seat) {
    const c = g.stock.pop();
    if (g.stock.length > 0) { g.hands[seat].push(c); event(g, 'draw', seat); }
    else { g.trumpCard = c; g.trumpHolder = seat; event(g, 'trump', seat); }  // R26: the trump slot
  }

  function apply1(g, move) {
    const seat = g.toAct;
    let c;
    if (move === 'draw') { draw(g, seat); g.drawn = true; return; }
    if (move === 'chance') {
      c = g.stock.pop();  // R16: played blind
      g.trick.push([seat, c, true]);
      g.round.push(c);
      event(g, 'chance', seat, [c]);
    } else {
      c = parseCard(move);
      removeCard(g.hands[seat], c);
      g.known[seat].delete(c);
      g.trick.push([seat, c, false]);
      g.round.push(c);
      event(g, 'play', seat, [c]);
      if (g.rules.draw_timing === 'after' && g.stock.length > 0) draw(g, seat);  // R17
    }
    if (g.round.length < g.roundSeats.length) nextMustPlay(g, g.roundSeats[g.round.length]);
    else resolveRound(g);
  }

  function nextMustPlay(g, seat) {
    if (g.stock.length === 0 && g.hands[seat].length === 0) exhausted(g, []);
    else beginTurn(g, seat);
  }

  function resolveRound(g) {
    const ranks = g.round.map(c => valueOf(g, c));
    const top = Math.max.apply(null, ranks);
    const tied = g.roundSeats.filter((s, i) => ranks[i] === top);
    if (tied.length === 1) { take(g, tied[0]); return; }  // R19
    event(g, 'stunsa');  // R21, A3
    g.round = [];
    g.roundSeats = tied;
    if (g.stock.length === 0) {
      const holders = tied.filter(s => g.hands[s].length > 0);
      if (holders.length < tied.length) { exhausted(g, holders); return; }  // R22, A4
    }
    beginTurn(g, tied[0]);
  }

  function take(g, winner) {  // R20
    const cards = g.trick.map(t => t[1]);
    g.won[winner].push.apply(g.won[winner], cards);
    event(g, 'take', winner, cards);
    g.lastTrickWinner = winner;
    afterTrick(g, winner);
  }

  function exhausted(g, holders) {  // R22, A4
    if (g.rules.bounce_exhausted === 'survivor_takes_all') {
      if (holders.length === 1) { take(g, holders[0]); return; }
      if (holders.length > 1) { g.roundSeats = holders; beginTurn(g, holders[0]); return; }
    }
    for (const [seat, c] of g.trick) g.won[seat].push(c);
    event(g, 'void', null, g.trick.map(t => t[1]));
    afterTrick(g, g.leader);
  }

  function afterTrick(g, next) {
    const everybody = g.rules.phase1_mode === 'all';
    if (g.stock.length > 0) {
      if (everybody) startTrick(g, next, clockwiseFrom(g, next, false));  // A2
      else startTrick(g, next, [next, (next + 1) % g.n]);  // R24
      return;
    }
    if (g.rules.phase1_end === 'stock_out') { start2(g); return; }  // R27
    const holders = g.hands.filter(h => h.length > 0).length;
    if (holders < 2) { start2(g); return; }
    let leader = next;
    while (g.hands[leader].length === 0) leader = (leader + 1) % g.n;
    if (everybody) { startTrick(g, leader, clockwiseFrom(g, leader, true)); return; }  // A5
    let opponent = (leader + 1) % g.n;
    while (g.hands[opponent].length === 0) opponent = (opponent + 1) % g.n;
    startTrick(g, leader, [leader, opponent]);
  }

  // ---- phase 2 (R28-R51) ---------------------------------------------------------------------

  function start2(g) {
    for (let s = 0; s < g.n; s++) {
      g.hands[s].push.apply(g.hands[s], g.won[s]);  // R28
      if (g.rules.public_won_piles) for (const c of g.won[s]) g.known[s].add(c);
      g.won[s] = [];
    }
    const holder = g.trumpHolder, trump = g.trumpCard;
    g.hands[holder].push(trump);  // R29
    g.known[holder].add(trump);
    g.trumpSuit = suitOf(trump);
    g.phase = 2;
    g.toAct = null;
    g.trick = []; g.round = []; g.roundSeats = [];
    event(g, 'phase2', holder, [trump]);
    for (let k = 0; k < g.n; k++) {  // R31, clockwise from the trump holder
      const seat = (holder + k) % g.n;
      if (g.hands[seat].length === 0) {
        if (g.rules.zero_card_start === 'out') goOut(g, seat);
        else g.pending[seat] = true;
      }
    }
    if (g.inCount === 1) { finish(g, 'normal'); return; }
    let leader = holder;  // R30
    if (g.rules.phase2_first_leader === 'last_trick_winner' && g.lastTrickWinner !== null) leader = g.lastTrickWinner;
    if (g.out[leader]) leader = nextIn(g, leader);
    beginLead(g, leader);
  }

  function nextIn(g, seat) {  // R32
    let s = (seat + 1) % g.n;
    while (g.out[s]) s = (s + 1) % g.n;
    return s;
  }

  function beginLead(g, seat) {
    for (let i = 0; i < g.n && g.hands[seat].length === 0; i++) seat = nextIn(g, seat);
    g.toAct = seat;
    g.trickSize = g.inCount;  // R45
    event(g, 'lead', seat, [], g.trickSize);
  }

  function goOut(g, seat) {  // R31, R48
    g.out[seat] = true;
    g.inCount -= 1;
    g.outOrder.push(seat);
    event(g, 'out', seat);
  }

  function apply2(g, move) {
    const seat = g.toAct;
    g.phase2Actions += 1;  // R51
    if (move === 'pickup') pickup(g, seat);
    else playUnit(g, seat, move.split(',').map(parseCard));
    if (g.outcome === null && g.phase2Actions >= g.rules.max_phase2_actions) finish(g, 'capped');
  }

  function playUnit(g, seat, cards) {
    for (const c of cards) { removeCard(g.hands[seat], c); g.known[seat].delete(c); }
    g.table.push(cards);
    g.tableOwners.push(seat);
    event(g, 'unit', seat, cards);
    if (g.hands[seat].length === 0 && !g.pending[seat]) {
      goOut(g, seat);  // R48
      if (g.inCount === 1) { finish(g, 'normal'); return; }  // R49, E12
    }
    if (g.table.length >= g.trickSize) {  // R45-R46
      const cards = [].concat.apply([], g.table);
      g.discard.push.apply(g.discard, cards);
      g.table = [];
      g.tableOwners = [];
      event(g, 'discard', null, cards);
      beginLead(g, g.rules.completer_leads && !g.out[seat] ? seat : nextIn(g, seat));
      return;
    }
    g.toAct = nextIn(g, seat);
  }

  function pickup(g, seat) {  // R42-R43
    const how = g.rules.pickup;
    let taken;
    if (how === 'trick') { taken = [].concat.apply([], g.table); g.table = []; g.tableOwners = []; }
    else if (how === 'top_play') { taken = g.table.pop(); g.tableOwners.pop(); }
    else if (how === 'bottom_play') { taken = g.table.shift(); g.tableOwners.shift(); }
    else if (how === 'top_card') taken = takeFromTop(g, 1);
    else taken = takeTopRun(g);
    g.hands[seat].push.apply(g.hands[seat], taken);
    for (const c of taken) g.known[seat].add(c);  // R44
    g.pending[seat] = false;
    event(g, 'pickup', seat, taken);
    const next = nextIn(g, seat);
    if (g.table.length > 0) g.toAct = next;  // R43, E22
    else beginLead(g, next);  // R42, E11
  }

  function takeFromTop(g, count) {
    const taken = [];
    for (let i = 0; i < count; i++) {
      const unit = g.table[g.table.length - 1];
      taken.push(unit[unit.length - 1]);
      if (unit.length === 1) { g.table.pop(); g.tableOwners.pop(); }
      else g.table[g.table.length - 1] = unit.slice(0, -1);
    }
    return taken;
  }

  function takeTopRun(g) {  // R43 top_run
    const stack = [].concat.apply([], g.table);
    let count = 1;
    while (count < stack.length) {
      const above = stack[stack.length - count], below = stack[stack.length - count - 1];
      if (suitOf(below) !== suitOf(above) || valueOf(g, below) !== valueOf(g, above) - 1) break;
      count += 1;
    }
    return takeFromTop(g, count);
  }

  // ---- the end (R49-R51, R53) ----------------------------------------------------------------

  function rankRemaining(g, remaining, counts, due) {  // R51's order: fewest cards, ties clockwise from `due`
    const key = s => counts[s] * g.n + ((s - due) % g.n + g.n) % g.n;
    return g.outOrder.concat(remaining.slice().sort((a, b) => key(a) - key(b)));
  }

  function finish(g, reason) {
    const remaining = [];
    for (let s = 0; s < g.n; s++) if (!g.out[s]) remaining.push(s);
    let order;
    if (reason === 'normal') order = g.outOrder.concat(remaining);
    else order = rankRemaining(g, remaining, g.hands.map(h => h.length), g.toAct !== null ? g.toAct : remaining[0]);
    end(g, order, reason, null);
  }

  function forfeit(g, seat) {  // R53
    if (g.outcome !== null) return;
    const counts = g.hands.map((h, s) => h.length + (g.phase === 1 ? g.won[s].length : 0));
    if (g.phase === 1 && g.trumpHolder !== null) counts[g.trumpHolder] += 1;
    const remaining = [];
    for (let s = 0; s < g.n; s++) if (!g.out[s] && s !== seat) remaining.push(s);
    const due = g.toAct !== null ? g.toAct : seat;
    end(g, rankRemaining(g, remaining, counts, due).concat([seat]), 'forfeit', seat);
  }

  function end(g, order, reason, forfeited) {
    g.outcome = {order: order, reason: reason, forfeited: forfeited};
    g.toAct = null;
    event(g, 'end', order[order.length - 1]);
  }

  // ---- moves -----------------------------------------------------------------------------------

  function applyMove(g, move) {
    if (g.outcome !== null) throw new Error('the game is over (R49)');
    g.moves += 1;
    if (g.phase === 1) apply1(g, move); else apply2(g, move);
  }

  /* What the table holds now, in plain values (the page draws it; the tests compare it with the
     arena's engine): cards as protocol text, hands low to high. */
  function snapshot(g) {
    const cards = list => list.map(cardText);
    const over = g.outcome !== null;
    return {
      phase: g.phase, over: over, to_act: g.toAct,
      hands: g.hands.map(h => cards(sorted(g, h))),
      won: g.won.map(cards),
      known: g.known.map(k => cards(sorted(g, Array.from(k)))),
      stock: cards(g.stock.slice().reverse()),  // top first
      set_aside: cards(g.setAside),
      trump_card: g.trumpCard === null ? null : cardText(g.trumpCard), trump_holder: g.trumpHolder,
      trump_suit: g.trumpSuit === null ? null : SUITS[g.trumpSuit],
      duel: g.duel.map(d => [d[0], cardText(d[1])]),
      leader: g.phase === 1 ? g.leader : null, opponent: g.phase === 1 ? g.opponent : null,
      trick: g.phase === 1 ? g.trick.map(t => [t[0], cardText(t[1]), t[2]]) : [],
      round_seats: g.phase === 1 ? g.roundSeats.slice() : [],
      table: g.table.map((u, i) => [g.tableOwners[i], cards(u)]), trick_size: g.phase === 2 ? g.trickSize : 0,
      discard: cards(g.discard), out: g.outOrder.slice(), actions: g.phase2Actions,
      outcome: over ? {order: g.outcome.order.slice(), reason: g.outcome.reason} : null,
    };
  }

  /* Every step of a recorded game (the page's JSON, arena/results/replay_json.py): step 0 is the
     deal, step k the table after move k, and a last step the forfeit, if the game ended by one.
     Each step has the table (snapshot) and the events of its move. `error` says where the
     recorded moves and these rules part, if they do (the page shows the steps up to there). */
  function replaySteps(data) {
    const g = newGame(data.rules, data.deal, data.dealer);
    const steps = [{state: snapshot(g), events: g.events.slice(), move: null}];
    let seen = g.events.length, error = null;
    for (let i = 0; i < data.moves.length; i++) {
      const move = data.moves[i];
      try {
        if (g.toAct !== move.seat) throw new Error('seat ' + move.seat + ' moves, but seat ' + g.toAct + ' is to act');
        applyMove(g, move.move);
      } catch (e) {
        error = 'move ' + (i + 1) + ' (' + move.move + '): ' + e.message;
        break;
      }
      steps.push({state: snapshot(g), events: g.events.slice(seen), move: i});
      seen = g.events.length;
    }
    const outcome = data.outcome || {};
    if (error === null && outcome.forfeited_seat !== null && outcome.forfeited_seat !== undefined) {
      forfeit(g, outcome.forfeited_seat);
      steps.push({state: snapshot(g), events: g.events.slice(seen), move: null, forfeit: outcome.forfeited_seat});
    }
    if (error === null && (g.outcome === null || g.outcome.order.join() !== (outcome.order || []).join())) {
      error = 'the moves end with finishing order ' + (g.outcome ? g.outcome.order.join(',') : '(none: unfinished)')
        + ', the record says ' + (outcome.order || []).join(',');
    }
    return {steps: steps, error: error};
  }

  const api = {parseCard, cardText, suitOf, newGame, applyMove, forfeit, snapshot, replaySteps, SUITS, RANKS};
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.SkitgubbeEngine = api;
})(this);
