"""The bot sandbox (docs/sandbox.md): the resource limits a bot runs under, their ceilings and
grants, and their checks (`limits`); isolation through bubblewrap (`isolation`); what the child
does between fork and exec: rlimits, network and PID namespaces, the seccomp filter (`child`,
`seccomp`); per-bot cgroups (`cgroup`); the relay of a granted tcp endpoint (`relay`); and the
guard that watches a running bot and kills it over a limit (`guard`). Standard library only: it
imports nothing else of the project but the transport's base and process pieces, so that every
layer that starts a process may use it.
"""
