"""Playing games with real bots: the referee of one game, which turns every bot fault into a
recorded outcome (`referee`, with `records` of faults and games and the `seat` of each bot),
starting a bot and reading its hello (`startup`, `protocol_log`), a table's match (`match`), and
random players in process (`selfplay`). It may import the rules, the protocol codec, the
transports, the sandbox and the submitted bots' manifests; the referee itself knows only the
transport interface, never pipes or ZeroMQ.
"""
