"""The `cudaport` command (main): check, fix, report, rule, serve; its argument parser in the user's language
(argparse_i18n), the output formats of `check` (formats), rule documentation (ruledoc) and the progress bar
(progress). May import everything below it (lsp, report, rewrite, engine, ...)."""
