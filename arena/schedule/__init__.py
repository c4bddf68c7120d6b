"""Tournament schedules: which bots meet at which table, in which seatings, with which cards
(`tables`, with the balanced schedule's search in `balanced`), each game's spec and key
(`games`), how games are numbered (`numbers`), and a league's matchmaking, which chooses the next
table from the ratings handed down as plain numbers (`matchmaking`). Results are keyed by these specs, so this
layer sits below the results store; it imports only the rules' seeds (`arena.game.seeds`).
"""
