"""Tournament schedules: which bots meet at which table, in which seatings, with which cards
(`tables`, with the balanced schedule's search in `balanced`), each game's spec and key
(`games`), and how games are numbered (`numbers`). Results are keyed by these specs, so this
layer sits below the results store; it imports only the rules' seeds (`arena.game.seeds`).
"""
