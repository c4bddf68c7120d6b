"""Tournament results: the SQLite journal, where a game is done iff its row is committed
(`store`, opening the file in `database`, one game as rows in `rows`, what a changed config may
keep in `changes`), and what is read from it: standings (`standings`, in SQL in
`standings_sql`), the figures other layers ask for (`queries`), the games list (`games_list`) and
replays (`replay`). Pure functions of stored rows where they can be. SQL stays in this package:
other layers call functions that return values, never a query of their own. It may import the
schedule (results are keyed by its game specs), the play layer's records and everything below;
never the tournament runner that writes it.
"""
