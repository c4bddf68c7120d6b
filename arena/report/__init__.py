"""Reports for people: a match's games and totals and selfplay summaries in the terminal
(`matches`), the standings table and its details (`standings`), the live board of a running
tournament (`live`), the games list as a table (`games`), and the standings as Markdown, HTML,
JSON and CSV (`export`). Rich lives here and in the CLI only. It may import results, the
tournament's config and everything below.
"""
