"""The league server (`arena serve`, issue 44): authors upload, the arena checks, everyone watches.
Its web layer (app.py, pages.py, api.py) words what the layers below decide: the accounts and
uploads (store.py, accounts.py, entering.py), the league's run (league.py), its results (reader.py)."""
