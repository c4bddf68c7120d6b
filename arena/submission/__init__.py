"""Bots as they are submitted: the manifest that says how to build, start and reach a bot
(`manifest`), finding bots by name or path (`lookup`), a bot's version as a hash of its files
(`versions`), its build step (`build`), registration and check records (`registry`), and the
starter bots of `arena bot new` (`scaffold`). It may import the sandbox's limits (a manifest's
[limits] table), the transport's process tree (a build is torn down as a bot is) and
`arena.wording`; it never plays a game.
"""
