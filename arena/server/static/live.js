// The leaderboard follows the league: the server sends the new board (server-sent events) when a
// game is stored. Its parts arrive as JSON and become text, except the standings and the ratings
// chart (the chart only now and then: it is most of the bytes), which the server renders from the
// results with every bot-given text escaped.
(function () {
  var live = document.getElementById('live');
  if (!live || !window.EventSource) return;
  var source = new EventSource('/api/events?after=' + encodeURIComponent(live.dataset.last));
  source.addEventListener('board', function (event) {
    var board = JSON.parse(event.data);
    document.getElementById('board').innerHTML = board.html;
    if (board.chart) document.getElementById('chart').innerHTML = board.chart;  // sent now and then
    live.dataset.last = board.last_game_id;
    var list = document.getElementById('recent');
    list.textContent = '';
    board.recent.forEach(function (game) {
      var item = document.createElement('li');
      var link = document.createElement('a');
      link.href = '/games/' + game.number;
      link.textContent = 'game ' + game.number;
      item.append(link, ': ' + game.order.join(' > '));
      list.append(item);
    });
    live.textContent = 'Live: updated with game ' + (board.recent.length ? board.recent[0].number : '') + '.';
  });
})();
