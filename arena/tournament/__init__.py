"""Running tournaments: configs (`config`, written from options by `config_write`), the runner
that plays what is not yet stored and is the single writer of the results (`runner`), and the
executor that plays tables, the local worker pool (`local_pool`). It may import the results it
writes and everything below; nothing here prints.
"""
