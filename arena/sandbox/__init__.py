"""The bot sandbox (docs/sandbox.md): the resource limits a bot runs under and their checks
(`limits`), what the child does between fork and exec: rlimits, network and PID namespaces
(`child`), per-bot cgroups (`cgroup`), and the guard that watches a running bot and kills it
over a limit (`guard`). Standard library only: it imports nothing else of the project, so
that every layer that starts a process may use it.
"""
