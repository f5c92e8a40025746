"""`cudaport serve`: the language server, over stdio or a loopback TCP port."""

from __future__ import annotations

import argparse
import os

from ..i18n import t
from .common import UsageError


def serve(args: argparse.Namespace) -> int:
    if getattr(args, "lang", None):
        # the server chooses its language itself (its `lang` setting, else the client's locale, else the
        # environment): --lang speaks for the environment, for clients that send no locale
        os.environ["CUDAPORT_LANG"] = args.lang
    try:
        if args.tcp is not None:
            from ..lsp.server import run_tcp

            return int(run_tcp(args.tcp, log_file=args.log_file))
        from ..lsp.stdio import serve_stdio

        return int(serve_stdio(log_file=args.log_file))  # pygls is loaded once the first diagnostics are out
    except ImportError as exc:
        raise UsageError(t("the language server is not available: {error}", error=exc)) from exc
