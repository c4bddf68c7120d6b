/* The replay page: draws a stored game's table at each step, as engine.js replays it from the deal,
   and steps through it (buttons, a scrubber with marks, keys: space, left, right, home, end).
   The address carries the step and the view (?step=N, ?seat=N), so a step can be linked.
   Text from bots and organisers (names, fault texts, stderr) only ever becomes text nodes. */
(function () {
  'use strict';
  const E = window.SkitgubbeEngine;
  const data = JSON.parse(document.getElementById('game').textContent);
  const page = JSON.parse(document.getElementById('page').textContent);
  const replayed = E.replaySteps(data);
  const steps = replayed.steps, last = steps.length - 1;
  const n = data.rules.num_players;
  const names = data.bots.map(b => b.name);
  const colours = page.colours || [];
  const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
  const SUIT_SYMBOL = {c: '\u2663', d: '\u2666', h: '\u2665', s: '\u2660'};
  const SUIT_NAME = {c: 'clubs', d: 'diamonds', h: 'hearts', s: 'spades'};

  const params = new URLSearchParams(location.search);
  const seatAsked = params.get('seat');
  const viewer = seatAsked !== null && /^[0-9]$/.test(seatAsked) && +seatAsked < n ? +seatAsked : null;
  let step = Math.max(0, Math.min(last, parseInt(params.get('step') || '0', 10) || 0));
  let timer = null, speed = 1;

  // ---- building blocks: elements from text, never from markup ----------------------------------
  function el(tag, cls, children) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    for (const c of [].concat(children || [])) {
      if (c === null || c === undefined || c === false) continue;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return e;
  }
  function pretty(card) { return (card[0] === 'T' ? '10' : card[0]) + SUIT_SYMBOL[card[1]]; }
  function prettyList(cards) { return cards.length ? cards.map(pretty).join(' ') : '(none)'; }
  function cardEl(card, zone) {
    const red = card[1] === 'd' || card[1] === 'h';
    const rank = card[0] === 'T' ? '10' : card[0];
    const e = el('span', 'card ' + (red ? 'red' : 'black'), [el('span', rank === '10' ? 'r ten' : 'r', rank), el('span', 's', SUIT_SYMBOL[card[1]]),
      el('span', 'pip', SUIT_SYMBOL[card[1]])]);
    e.dataset.card = card;
    e.dataset.zone = zone;
    e.title = rank + ' of ' + SUIT_NAME[card[1]];
    return e;
  }
  function backEl(zone) {
    const e = el('span', 'card back');
    e.dataset.zone = zone;
    e.title = 'a card face down';
    return e;
  }
  function who(seat) {
    const e = el('span', 'who', [el('span', 'swatch'), names[seat]]);
    e.style.setProperty('--c', colours[seat] || '#666');
    return e;
  }
  function place(k) {
    if (k === n) return 'skitgubbe';
    return k + (k === 1 ? 'st' : k === 2 ? 'nd' : k === 3 ? 'rd' : 'th');
  }

  /* The cards of one zone: faces where the view may see them, backs where not; a long row of
     cards overlaps (a fan) so that it fits a phone's width. */
  function zoneEl(cards, zone, visible, fanFrom, marked) {
    const box = el('span', 'cards' + (cards.length > (fanFrom || 12) ? ' fan' : ''));
    for (const c of cards) {
      const e = visible(c) ? cardEl(c, zone) : backEl(zone);
      if (marked && marked.has(c) && e.dataset.card) e.classList.add('shown');
      box.appendChild(e);
    }
    return box;
  }
  const always = () => true;

  // ---- the view: what may be seen (R8-R10 for a seat's view) ------------------------------------
  function seesHand(state, seat) {
    if (viewer === null || viewer === seat) return always;
    const known = new Set(state.known[seat]);
    return c => known.has(c);
  }
  function sees(zone) {
    if (viewer === null) return always;
    if (zone === 'stock' || zone === 'trump' || zone === 'aside') return () => false;  // R9
    if (zone === 'pile') return () => !!data.rules.public_won_piles;  // R10
    return always;
  }

  // ---- the page's frame, built once ---------------------------------------------------------------
  const main = document.querySelector('main');
  main.dataset.steps = String(last);
  const title = data.game.number !== null ? 'Game ' + data.game.number : 'Game ' + data.game.key;
  document.title = title + (data.game.tournament ? ' \u00b7 ' + data.game.tournament : '') + ' \u00b7 replay';
  const head = el('header', 'top', [el('h1', null, [title, data.game.tournament ? el('small', null, ' ' + data.game.tournament) : null])]);
  const facts = [data.game.key, 'seed ' + data.seed, 'dealer ' + names[data.dealer]];
  const changed = Object.keys(data.changed_rules || {}).sort().map(k => k + '=' + data.changed_rules[k]);
  facts.push(changed.length ? 'rules: ' + changed.join(', ') : 'default rules');
  if (data.engine.arena) facts.push('arena ' + data.engine.arena + ', protocol ' + data.engine.protocol);
  if (data.game.finished_at) facts.push('played ' + new Date(data.game.finished_at * 1000).toISOString().slice(0, 16)
    .replace('T', ' ') + ' UTC');
  head.appendChild(el('p', 'sub', facts.join(' \u00b7 ')));
  const views = el('p', 'views', ['View: ']);
  const viewLinks = [];
  for (let s = -1; s < n; s++) {
    const a = el('a', s === (viewer === null ? -1 : viewer) ? 'on' : null, s < 0 ? 'referee (all cards)' : [who(s)]);
    a.dataset.seat = String(s);
    viewLinks.push(a);
    views.appendChild(a);
    views.appendChild(document.createTextNode(' '));
  }
  head.appendChild(views);
  if (data.game.superseded) head.appendChild(el('p', 'warn', 'Out of the standings: ' + data.game.superseded));
  const choice = data.game.table_choice;  // a league's game: why the matchmaking chose its table
  if (choice) head.appendChild(el('p', 'why', [el('strong', null, 'Why this table'), ' (league table ' + choice.number +
    '): ' + choice.why]));
  if (replayed.error) head.appendChild(el('p', 'warn', 'This page\u2019s rules part from the recorded moves at ' +
    replayed.error + '; it shows the steps up to there.'));
  if (page.back) {
    const back = el('a', null, page.back_words || 'all games');
    back.href = page.back;
    head.appendChild(el('p', 'back', [back]));
  }
  main.before(head);

  function button(label, text, act) {
    const b = el('button', null, text);
    b.type = 'button';
    b.setAttribute('aria-label', label);
    b.title = label;
    b.addEventListener('click', act);
    return b;
  }
  const playButton = button('play or pause (space)', 'play', toggle);
  const counter = el('span', 'counter');
  const speedSelect = el('select', null);
  speedSelect.setAttribute('aria-label', 'speed');
  for (const s of SPEEDS) {
    const o = el('option', null, s + '\u00d7');
    o.value = String(s);
    o.selected = s === 1;
    speedSelect.appendChild(o);
  }
  speedSelect.addEventListener('change', () => { speed = +speedSelect.value; if (timer !== null) { stop(); play(); } });
  const scrub = el('input', null);
  scrub.type = 'range'; scrub.min = '0'; scrub.max = String(last); scrub.value = String(step);
  scrub.setAttribute('aria-label', 'step');
  scrub.addEventListener('input', () => { stop(); go(+scrub.value); });
  const marks = el('div', 'marks');
  for (const m of scrubMarks()) {
    const mark = el('span', 'mark m-' + m.kind);
    mark.style.left = (last ? 100 * m.step / last : 0) + '%';
    if (m.seat !== undefined) mark.style.setProperty('--c', colours[m.seat] || '#666');
    mark.title = m.words;
    marks.appendChild(mark);
  }
  const bar = el('div', 'bar', [
    el('div', 'buttons', [button('first step (home)', '|\u25c0', () => { stop(); go(0); }),
      button('previous step (left)', '\u25c0', () => { stop(); go(step - 1); }), playButton,
      button('next step (right)', '\u25b6', () => { stop(); go(step + 1); }),
      button('last step (end)', '\u25b6|', () => { stop(); go(last); }), speedSelect, counter]),
    el('div', 'scrub', [scrub, marks])]);
  const status = el('p', 'status');
  const middle = el('div', 'middle');
  const seats = el('div', 'seats');
  const now = el('section', 'now');
  const log = el('ol', 'log');
  main.append(bar, el('div', 'layout', [el('section', 'board', [status, middle, seats]),
    el('aside', 'side', [now, el('details', 'history', [el('summary', null, 'every move'), log])])]));
  for (let k = 1; k <= last; k++) log.appendChild(logLine(k));

  // ---- the marks on the scrubber: phase 2, faults, each player out, the end ----------------------
  function scrubMarks() {
    const out = [];
    steps.forEach((s, k) => {
      for (const ev of s.events) {
        if (ev.kind === 'phase2') out.push({step: k, kind: 'phase', words: 'phase 2 starts (step ' + k + ')'});
        if (ev.kind === 'out') out.push({step: k, kind: 'out', seat: ev.seat, words: names[ev.seat] + ' is out (step ' + k + ')'});
      }
    });
    for (const f of data.faults) {
      if (f.kind === 'dead') continue;  // a move made for a bot already gone: its loss has its own mark
      const k = faultStep(f);
      out.push({step: k, kind: 'fault', words: f.kind + ' by ' + names[f.seat] + ' (step ' + k + ')'});
    }
    out.push({step: last, kind: 'end', words: 'the end (step ' + last + ')'});
    return out;
  }

  /* The step a fault is shown at: that of the move the arena made in its place (fault.move is that
     move's index); a bot that could not start (no_hello) at the deal. */
  function faultStep(f) { return f.kind === 'no_hello' ? 0 : Math.min(last, f.move + 1); }

  // ---- words for the events of a move (as arena/results/replay.py's describe_event) --------------
  function words(ev) {
    const name = ev.seat === null ? '' : names[ev.seat];
    const cards = ev.cards.map(E.cardText);
    switch (ev.kind) {
      case 'duel': return name + ' shows ' + prettyList(cards) + ' in the duel';
      case 'draw': return name + ' draws';
      case 'trump': return name + ' takes the last stock card (the trump card, face down)';
      case 'play': return name + ' plays ' + prettyList(cards);
      case 'chance': return name + ' turns up ' + prettyList(cards) + ' from the stock';
      case 'stunsa': return 'stunsa! the players tied for the top card play another round';
      case 'take': return name + ' takes ' + prettyList(cards);
      case 'void': return 'void trick: the cards go back to who played them';
      case 'phase2': return 'phase 2: the trump card ' + prettyList(cards) + ' joins ' + name + '\u2019s hand';
      case 'out': return name + ' is out';
      case 'unit': return name + ' plays ' + prettyList(cards);
      case 'pickup': return name + ' picks up ' + prettyList(cards);
      case 'discard': return 'trick complete, discarded';
      case 'lead': return name + ' leads (a trick of ' + ev.count + ')';
      case 'end': return 'game over: ' + name + ' is the skitgubbe';
    }
    return ev.kind;
  }
  function logLine(k) {
    const s = steps[k];
    const li = el('li', null);
    li.value = k;
    const m = s.move === null ? null : data.moves[s.move];
    const a = el('a', null, m ? [names[m.seat] + ' ', el('code', null, m.move)] : ['forfeit']);
    a.href = '?' + (viewer === null ? '' : 'seat=' + viewer + '&') + 'step=' + k;
    a.addEventListener('click', e => { e.preventDefault(); stop(); go(k); });
    li.appendChild(a);
    if (m && m.by_referee) li.appendChild(el('span', 'fault-tag', ' arena'));
    return li;
  }

  // ---- drawing one step --------------------------------------------------------------------------
  function draw() {
    const s = steps[step].state;
    main.dataset.step = String(step);
    scrub.value = String(step);
    counter.textContent = step === 0 ? 'the deal, 0/' + last : 'move ' + step + '/' + last;
    drawStatus(s);
    drawMiddle(s);
    drawSeats(s);
    drawNow(s);
    for (const li of log.children) li.classList.toggle('on', li.value === step);
    for (const a of viewLinks) {
      const q = new URLSearchParams();
      if (a.dataset.seat !== '-1') q.set('seat', a.dataset.seat);
      q.set('step', String(step));
      a.href = '?' + q.toString();
    }
    followAddress();
  }

  /* The address follows the step, at most every ADDRESS_EVERY_MS: a browser stops listening to a
     page that changes its address hundreds of times in a few seconds (a held arrow key). */
  const ADDRESS_EVERY_MS = 150;
  let addressTimer = null;
  function followAddress() {
    if (addressTimer !== null) return;
    addressTimer = setTimeout(() => {
      addressTimer = null;
      const q = new URLSearchParams(location.search);
      q.set('step', String(step));
      try { history.replaceState(null, '', '?' + q.toString() + location.hash); } catch (e) { /* a sandboxed frame */ }
    }, ADDRESS_EVERY_MS);
  }

  function drawStatus(s) {
    const parts = [];
    if (s.over) parts.push('Game over (' + s.outcome.reason + ')');
    else if (s.phase === 1) parts.push('Phase 1: collecting cards \u00b7 stock ' + s.stock.length);
    else parts.push('Phase 2: shedding \u00b7 trump ' + SUIT_SYMBOL[s.trump_suit] + ' ' + SUIT_NAME[s.trump_suit] +
      ' \u00b7 a trick of ' + s.trick_size);
    status.replaceChildren(parts.join(''));
    if (s.to_act !== null) status.append(' \u00b7 to act: ', who(s.to_act));
  }

  function box(label, content, cls) { return el('div', 'zone ' + (cls || ''), [el('div', 'label', label), content]); }

  function drawMiddle(s) {
    const parts = [];
    if (s.phase === 1 || s.stock.length) parts.push(box('stock ' + s.stock.length + (viewer === null ? ', top first' : ''),
      zoneEl(s.stock, 'stock', sees('stock'), 6), 'stock'));
    if (s.trump_card !== null && s.phase === 1 && s.trump_holder !== null) {
      parts.push(box(['trump card, face down by ', who(s.trump_holder)], zoneEl([s.trump_card], 'trump', sees('trump')), 'trump'));
    }
    if (s.set_aside.length) parts.push(box('set aside, unseen (R5)', zoneEl(s.set_aside, 'aside', sees('aside'), 6), 'aside'));
    const box_ = box(tableLabel(s), tableEl(s), 'table');
    if (beforeFirstTrick(s)) box_.appendChild(duelEl(s));
    parts.push(box_);
    if (s.discard.length || s.phase !== 1) parts.push(box('discard ' + s.discard.length, zoneEl(s.discard, 'discard', always, 6), 'discard'));
    middle.replaceChildren(...parts);
  }
  /* The duel (R13) before the first card is played: the shown cards stay in their owners' hands
     (marked there), so the table names them rather than drawing them twice. */
  function beforeFirstTrick(s) {
    return s.phase === 1 && !s.over && s.duel.length > 0 && s.trick.length === 0 && s.won.every(w => w.length === 0);
  }
  function duelEl(s) {
    const p = el('p', 'duel', ['The duel (R13): ']);
    s.duel.forEach((d, i) => { p.append(i ? ', ' : '', who(d[0]), ' shows ' + pretty(d[1])); });
    p.append('; ', who(s.leader), ' leads.');
    return p;
  }
  function tableLabel(s) {
    if (s.phase === 1 && !s.over && s.round_seats.length) {
      if (s.opponent !== null) return ['on the table: ', who(s.leader), ' leads against ', who(s.opponent)];
      return ['on the table: ', who(s.leader), ' leads, everybody plays'];
    }
    return 'on the table';
  }
  function tableEl(s) {
    const row = el('div', 'played');
    const units = s.phase === 1 ? s.trick.map(t => [t[0], [t[1]], t[2]]) : s.table.map(u => [u[0], u[1], false]);
    units.forEach((u, i) => {
      const cell = el('div', 'unit' + (s.phase !== 1 && i === units.length - 1 ? ' top' : ''),
        [zoneEl(u[1], 'table', always), el('div', 'owner', [who(u[0]), u[2] ? ' (blind)' : null])]);
      row.appendChild(cell);
    });
    if (!units.length) row.appendChild(el('span', 'empty', s.over ? 'nothing' : 'nothing yet'));
    return row;
  }

  function drawSeats(s) {
    const places = {};
    if (s.outcome) s.outcome.order.forEach((seat, i) => { places[seat] = i + 1; });
    else s.out.forEach((seat, i) => { places[seat] = i + 1; });
    const panels = [];
    for (let seat = 0; seat < n; seat++) {
      const tags = [el('span', 'tag', 'seat ' + seat)];
      if (seat === data.dealer) tags.push(el('span', 'tag', 'dealer'));
      if (s.trump_holder === seat) tags.push(el('span', 'tag', 'trump holder'));
      if (s.to_act === seat) tags.push(el('span', 'tag act', 'to act'));
      if (places[seat]) tags.push(el('span', 'tag place', s.outcome ? place(places[seat]) : 'out ' + place(places[seat])));
      const hand = s.hands[seat];
      const panel = el('section', 'seat' + (s.to_act === seat ? ' acting' : '') + (viewer === seat ? ' mine' : ''), [
        el('h2', null, [who(seat), ' '].concat(tags)),
        el('div', 'label', 'hand ' + hand.length), zoneEl(handOrder(s, seat, hand), 'hand-' + seat, seesHand(s, seat), 12,
          beforeFirstTrick(s) ? new Set(s.duel.map(d => d[1])) : null)]);
      panel.style.setProperty('--c', colours[seat] || '#666');
      if (s.phase === 1) panel.append(el('div', 'label', 'won pile ' + s.won[seat].length),
        zoneEl(s.won[seat], 'pile-' + seat, sees('pile'), 6));
      if (s.outcome && data.outcome.points) panel.append(el('div', 'label', 'points: ' + data.outcome.points[seat]));
      panels.push(panel);
    }
    seats.replaceChildren(...panels);
  }
  /* A hand low to high (R2); in phase 2 by suit first, so that runs (R34) and trumps show together.
     A seat's view: the cards it knows of first, then the backs. */
  function handOrder(s, seat, hand) {
    const visible = seesHand(s, seat);
    const ordered = s.phase === 1 ? hand : E.SUITS.split('').flatMap(suit => hand.filter(c => c[1] === suit));
    return ordered.filter(visible).concat(ordered.filter(c => !visible(c)));
  }

  function drawNow(s) {
    const k = step, st = steps[k];
    const parts = [];
    if (k === 0) parts.push(el('h2', null, 'The deal'), el('p', null, [who(data.dealer), ' deals 3 cards to each player; ' +
      data.deal.stock.length + ' make the stock' + (data.deal.set_aside.length ? ', ' + data.deal.set_aside.length +
      ' are set aside unseen (R5)' : '') + ' (R7).']));
    else if (st.move === null) parts.push(el('h2', null, 'Forfeit'), el('p', null, [who(st.forfeit), ' forfeits: ' +
      (data.outcome.forfeit_reason || 'a fault') + ' (R53)']));
    else {
      const m = data.moves[st.move];
      const own = viewer === null || viewer === m.seat;
      parts.push(el('h2', null, ['Move ' + k + ': ', who(m.seat)]));
      const dl = el('dl', 'facts', [el('dt', null, 'move'), el('dd', null, el('code', null, m.move))]);
      if (own) {
        dl.append(el('dt', null, 'think time'), el('dd', null, m.think_ms === null ? (m.by_referee ? 'no answer' : 'not recorded')
          : m.think_ms.toFixed(2) + ' ms'));
        dl.append(el('dt', null, 'legal moves'), el('dd', null, String(m.legal)));
      }
      parts.push(dl);
      if (m.by_referee) parts.push(el('p', 'fault', 'The arena made this move for ' + names[m.seat] + ' (the fallback, R52).'));
    }
    for (const f of data.faults) {
      if (faultStep(f) !== k) continue;
      if (f.kind === 'dead') {
        parts.push(el('p', 'gone', [who(f.seat), ' is gone from this game (not counted again as a fault): ' + f.detail]));
        continue;
      }
      const box = el('div', 'fault', [el('strong', null, 'Fault: ' + f.kind), ' by ', who(f.seat), el('p', 'detail', f.detail)]);
      if (f.stderr && (viewer === null || viewer === f.seat)) box.append(el('div', 'label', 'its stderr ended with:'), el('pre', 'stderr', f.stderr));
      parts.push(box);
    }
    if (st.events.length) parts.push(el('ul', 'events', st.events.map(ev => el('li', null, words(ev)))));
    if (s.outcome) parts.push(resultEl(s));
    now.replaceChildren(...parts);
  }
  function resultEl(s) {
    const ol = el('ol', 'result');
    s.outcome.order.forEach((seat, i) => ol.appendChild(el('li', null, [place(i + 1) + ': ', who(seat),
      data.outcome.points ? ' (' + data.outcome.points[seat] + (data.outcome.points[seat] === 1 ? ' point)' : ' points)') : null])));
    return el('div', null, [el('h3', null, 'Result (' + s.outcome.reason + ')'), ol]);
  }

  // ---- stepping ------------------------------------------------------------------------------------
  function go(k) {
    const next = Math.max(0, Math.min(last, k));
    if (next === step && main.dataset.step === String(step)) return;
    step = next;
    draw();
  }
  function play() {
    if (step >= last) go(0);
    playButton.textContent = 'pause';
    main.dataset.playing = '1';
    timer = setInterval(() => { if (step >= last) stop(); else go(step + 1); }, 1000 / speed);
  }
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playButton.textContent = 'play';
    delete main.dataset.playing;
  }
  function toggle() { if (timer === null) play(); else stop(); }
  document.addEventListener('keydown', e => {
    const t = e.target;
    if (e.altKey || e.ctrlKey || e.metaKey || (t && (t.tagName === 'SELECT' || t.tagName === 'INPUT' ||
      t.tagName === 'TEXTAREA'))) return;
    const act = {' ': toggle, ArrowLeft: () => { stop(); go(step - 1); }, ArrowRight: () => { stop(); go(step + 1); },
      Home: () => { stop(); go(0); }, End: () => { stop(); go(last); }}[e.key];
    if (!act) return;
    e.preventDefault();
    if (t && t.tagName === 'BUTTON' && e.key === ' ') t.blur();  // space on a focused button must not click it too
    act();
  });
  draw();
})();
