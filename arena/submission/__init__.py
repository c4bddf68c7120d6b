"""Bots as they are submitted: the manifest that says how to build, start and reach a bot
(`manifest`), its folder read as hostile input (`folder`), finding bots by name or path
(`lookup`), a bot's version as a hash of its files (`versions`), the copy of it that runs, built
once per version (`prepared`, with its build step in `build`), registration and check records
(`registry`), bundles for a cluster's workers (`bundle`), and the starter bots of `arena bot new`
(`scaffold`). It may import the sandbox (limits, the build's isolation and cgroup), the
transport's process tree (a build is torn down as a bot is) and `arena.wording`; it never plays a
game.
"""
