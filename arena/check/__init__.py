"""`arena bot check`: whether a bot keeps the contract of protocol.md, found by playing it through
the play layer against the bundled bots (`runner`), one function per row: the rows read off the
games (`rows`), probes of what games alone would not show (`probes`), the evidence a failed row
quotes (`evidence`) and the rows' values (`verdicts`). It may import the play layer and everything
below it; it prints nothing.
"""
